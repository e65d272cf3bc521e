import Postgres
@testable import RLSKit
import TestSupport
import XCTest

/// The README's "rlskit as a Swift library" example, kept compiling and passing.
final class LibraryUsageTests: XCTestCase {
    func testREADMEExample() throws {
        let sqlDir = Provisioned.repositoryRoot + "/sql"
        try withLocalCluster { cluster in
            let conn = try PostgresConnection(cluster.connectionString)

            var options = Migrator.Options()
            _ = try Migrator(conn, source: .directory(sqlDir + "/migrations"), options: options).run()          // stand-in + migrations

            let tests = try HarnessLoader.load([sqlDir + "/tests"])
            let report = try Harness.run(tests, on: cluster.connectionString)
            XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))

            let audit = AuditReport(result: try Auditor.run(conn, exposedSchemas: nil, helper: cluster.connectionString))
            XCTAssertFalse(audit.fails(at: .warn), audit.text(color: false))
        }
    }
}
