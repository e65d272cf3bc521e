import Foundation
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// What `--format tap` and the text report say of TODO, SKIP and a file that stops mid-way.
final class PgTAPTAPOutputTests: XCTestCase {
    func run(_ files: [String: String]) throws -> TestReport {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tapout-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, sql) in files { try sql.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let paths = try PgTAPRunner.discover([dir]).map { ($0.path, ($0.path as NSString).lastPathComponent) }
        return try PgTAPRunner(connection: db.connectionString).run(paths).report
    }

    func testTodoAndSkipLinesAreWhatPgTAPWrites() throws {
        let report = try run([
            "a.sql": """
            begin;
            select plan(4);
            select skip('not here', 1);
            select todo('not done yet', 1);
            select ok(false, 'a failing todo');
            select todo('expected to fail', 1);
            select ok(true, 'a passing todo');
            select pass('plain');
            select * from finish();
            rollback;
            """
        ])
        let lines = TestReportWriter.render(report, format: .tap).split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("ok 1 - a.sql: 1 # SKIP not here"), "\(lines)")
        XCTAssertTrue(lines.contains("not ok 2 - a.sql: 2 - a failing todo # TODO not done yet"), "\(lines)")
        XCTAssertTrue(lines.contains("ok 3 - a.sql: 3 - a passing todo # TODO expected to fail"), "\(lines)")
        XCTAssertTrue(lines.contains("ok 4 - a.sql: 4 - plain"), "\(lines)")
        XCTAssertTrue(report.passed, "a TODO never fails the run")
        let text = TestReportWriter.render(report, format: .text)
        XCTAssertTrue(text.contains("TODO: not done yet"), text)
        XCTAssertTrue(text.contains("passed unexpectedly; TODO: expected to fail"), text)
    }

    func testAnErrorMidwaySaysTheErrorAndTheShortPlan() throws {
        let report = try run([
            "b.sql": """
            begin;
            select plan(3);
            select pass('before');
            select 1/0;
            select pass('after');
            select * from finish();
            rollback;
            """
        ])
        XCTAssertFalse(report.passed)
        let text = TestReportWriter.render(report, format: .text)
        XCTAssertTrue(text.contains("SQL error: "), text)
        XCTAssertTrue(text.contains("division by zero"), text)
        XCTAssertTrue(text.contains("planned 3 tests but ran 1"), text)
    }
}
