import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

final class ManyDatabasesTests: XCTestCase {
    func testTestRunsOnSeveralDatabasesInParallel() throws {
        let a = try Provisioned.database(prefix: "many")
        let b = try Provisioned.database(prefix: "many")
        defer {
            TestServer.drop(a.name)
            TestServer.drop(b.name)
        }
        let tests = Provisioned.repositoryRoot + "/sql/tests"
        let ok = try CLI.run([
            "test", "--database-url", a.connectionString.raw, "--database-url", b.connectionString.raw, tests,
        ])
        XCTAssertEqual(ok.code, 0, ok.output)
        XCTAssertEqual(ok.stdout.split(separator: "\n").filter { $0.hasPrefix("✓ ") }.count, 2, ok.stdout)
        XCTAssertTrue(ok.stdout.contains("2 databases: "))

        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# team projects\n\(a.connectionString.raw)\n\npostgresql://u:hidden@127.0.0.1:1/x?connect_timeout=2\n"
            .write(toFile: dir + "/dbs.txt", atomically: true, encoding: .utf8)
        let mixed = try CLI.run([
            "test", "--database-urls", dir + "/dbs.txt", "--format", "junit", "--output", dir + "/r.xml", tests,
        ])
        XCTAssertEqual(mixed.code, 3, mixed.output)
        XCTAssertTrue(
            mixed.stdout.contains("✗ x on 127.0.0.1:1: cannot connect"), mixed.stdout)
        XCTAssertFalse(mixed.output.contains("hidden"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/r.xml"))

        try "not a url at all ===\n".write(toFile: dir + "/bad.txt", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["test", "--database-urls", dir + "/bad.txt", tests])
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("rlskit: \(dir)/bad.txt:1: not a valid connection string"), bad.stderr)
    }

    func testAuditRunsOnSeveralDatabasesInParallel() throws {
        let good = try Provisioned.database(prefix: "manya")
        let seed = try TestServer.makeDatabase(prefix: "manya")
        defer {
            TestServer.drop(good.name)
            TestServer.drop(seed.name)
        }
        let c = try PostgresConnection(seed.connectionString)
        let o = Migrator.Options()
        _ = try Migrator(
            c, source: .directory(Provisioned.repositoryRoot + "/Tests/Fixtures/empty-migrations"), options: o
        ).run()
        _ = try c.runScript(
            try String(
                contentsOfFile: Provisioned.repositoryRoot + "/Tests/Fixtures/seed000-as-written.sql", encoding: .utf8))
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run([
            "audit", "--database-url", good.connectionString.raw, "--database-url", seed.connectionString.raw,
            "--format", "sarif", "--output", dir + "/a.sarif",
        ])
        XCTAssertEqual(r.code, 1, r.output)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("✓ ") && $0.contains(good.name) }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("✗ ") && $0.contains(seed.name) }, r.stdout)
        let sarif =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/a.sarif")))
            as! [String: Any]
        XCTAssertEqual((sarif["runs"] as! [Any]).count, 2)
    }
}
