import Foundation
import Postgres
import Synchronization
import TestSupport
import XCTest

@testable import rlskit

/// Many databases of one server: a few at a time, never one connection each at once.
final class ManyDatabasesBoundTests: XCTestCase {
    /// Twenty databases whose work takes a while: at most `parallel` run at once, and more than one.
    func testAFewDatabasesAtATime() throws {
        let targets = (0..<20).map { DatabaseTarget(connection: ConnectionString("dbname=d\($0)"), cluster: nil) }
        let now = Mutex((running: 0, peak: 0))
        let results = ManyDatabases.run(targets) { t in
            now.withLock {
                $0.running += 1
                $0.peak = max($0.peak, $0.running)
            }
            Thread.sleep(forTimeInterval: 0.05)
            now.withLock { $0.running -= 1 }
            return t.connection.raw
        }
        XCTAssertEqual(results.compactMap { try? $0.get() }, targets.map(\.connection.raw))
        let peak = now.withLock { $0.peak }
        XCTAssertLessThanOrEqual(peak, ManyDatabases.parallel)
        XCTAssertGreaterThan(peak, 1, "still in parallel")
    }

    /// 24 URLs of one server whose max_connections would not hold one audit each at once (an
    /// audit holds two connections): every database is audited, none is refused "too many
    /// clients", and the client backends seen in pg_stat_activity stay within the bound.
    func testManyURLsToOneServerStayWithinItsConnections() throws {
        var options = LocalCluster.Options()
        options.settings = ["max_connections": "12", "superuser_reserved_connections": "0"]
        let cluster = try LocalCluster(options: options)
        defer { cluster.stop() }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = cluster.connectionString.raw
        try (Array(repeating: url, count: 24).joined(separator: "\n") + "\n")
            .write(toFile: dir + "/dbs.txt", atomically: true, encoding: .utf8)

        let sampler = try PostgresConnection(cluster.connectionString)
        let (process, out, err) = try CLI.start(["audit", "--database-urls", dir + "/dbs.txt"])
        let outData = Mutex(Data())
        let errData = Mutex(Data())
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) {
            let d = out.fileHandleForReading.readDataToEndOfFile()
            outData.withLock { $0 = d }
        }
        DispatchQueue.global().async(group: readers) {
            let d = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = d }
        }
        var peak = 0
        while process.isRunning {
            let n: Int = try sampler.query(
                """
                select count(*)::int from pg_stat_activity
                where backend_type = 'client backend' and pid <> pg_backend_pid()
                """
            ).rows[0].decode(0)
            peak = max(peak, n)
            Thread.sleep(forTimeInterval: 0.002)
        }
        readers.wait()
        process.waitUntilExit()
        let stdout = String(decoding: outData.withLock { $0 }, as: UTF8.self)
        let output = stdout + String(decoding: errData.withLock { $0 }, as: UTF8.self)
        XCTAssertNotEqual(process.terminationStatus, 3, output)
        XCTAssertFalse(output.contains("too many clients"), output)
        XCTAssertEqual(stdout.split(separator: "\n").filter { $0.hasPrefix("✓ ") }.count, 24, output)
        XCTAssertGreaterThan(peak, 0, "the sampler saw the audits")
        XCTAssertLessThanOrEqual(peak, 2 * ManyDatabases.parallel, "connections at once")
    }
}
