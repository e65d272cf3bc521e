import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Eight `rlskit apply` processes at once on one database: each migration applied exactly
/// once, none fails, the ledger is consistent.
final class ConcurrencyTests: XCTestCase {
    func testEightApplyProcessesAtOnce() throws {
        let db = try TestServer.makeDatabase(prefix: "eight")
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for i in 1...5 {
            try "create table t\(i) (x int);\ninsert into t\(i) values (\(i));\nselect pg_sleep(0.05);"
                .write(toFile: dir + "/00\(i)_t\(i).sql", atomically: true, encoding: .utf8)
        }
        let runs = try (0..<8).map { _ in
            try CLI.start(["apply", "--database-url", db.connectionString.raw, "--dir", dir])
        }
        var outputs: [String] = []
        for (p, out, err) in runs {
            let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, o + e)
            outputs.append(o)
        }
        let appliedLines = outputs.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("applied 00") }
        XCTAssertEqual(appliedLines.count, 5, "\(appliedLines)")
        let conn = try PostgresConnection(db.connectionString)
        XCTAssertEqual(
            try conn.query("select count(*)::int, count(distinct version)::int from rlskit.migrations").rows[0].decode(
                0) as Int, 5)
        for i in 1...5 { XCTAssertEqual(try conn.query("select count(*)::int from t\(i)").rows[0].decode(0) as Int, 1) }
        XCTAssertEqual(
            try conn.query("select count(*)::int from rlskit.stand_in").rows[0].decode(0) as Int,
            BuiltInSQL.files(in: "compat").count)
    }
}
