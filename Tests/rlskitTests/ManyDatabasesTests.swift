import Foundation
import Postgres
import TestSupport
import XCTest

final class ManyDatabasesTests: XCTestCase {
    func testTestRunsOnSeveralDatabasesInParallel() throws {
        let a = try Provisioned.database(prefix: "many"), b = try Provisioned.database(prefix: "many")
        defer { TestServer.drop(a.name); TestServer.drop(b.name) }
        let tests = Provisioned.repositoryRoot + "/sql/tests"
        let ok = try CLI.run(["test", "--database-url", a.connectionString.raw, "--database-url", b.connectionString.raw, tests])
        XCTAssertEqual(ok.code, 0, ok.output)
        XCTAssertEqual(ok.stdout.split(separator: "\n").filter { $0.hasPrefix("✓ ") }.count, 2, ok.stdout)
        XCTAssertTrue(ok.stdout.contains("2 databases: "))

        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# team projects\n\(a.connectionString.raw)\n\npostgresql://u:hidden@127.0.0.1:1/x?connect_timeout=2\n"
            .write(toFile: dir + "/dbs.txt", atomically: true, encoding: .utf8)
        let mixed = try CLI.run(["test", "--database-urls", dir + "/dbs.txt", "--format", "junit", "--output", dir + "/r.xml", tests])
        XCTAssertEqual(mixed.code, 3, mixed.output)
        XCTAssertTrue(mixed.stdout.contains("✗ host=127.0.0.1 port=1 user=u dbname=x password=***: cannot connect"), mixed.stdout)
        XCTAssertFalse(mixed.output.contains("hidden"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/r.xml"))

        try "not a url at all ===\n".write(toFile: dir + "/bad.txt", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["test", "--database-urls", dir + "/bad.txt", tests])
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("rlskit: \(dir)/bad.txt:1: not a valid connection string"), bad.stderr)
    }
}
