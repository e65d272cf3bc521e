import Postgres
import RLSKit
import TestSupport
import XCTest

/// Every lint's own examples, on a real server with the Supabase stand-in (SwiftLint style).
final class LintExampleTests: XCTestCase {
    func testEveryLintHasExamples() {
        for lint in LintRegistry.all {
            XCTAssertFalse(lint.triggering.isEmpty, lint.name)
            XCTAssertFalse(lint.nonTriggering.isEmpty, lint.name)
        }
        XCTAssertEqual(Set(LintRegistry.all.map(\.name)).count, LintRegistry.all.count)
        XCTAssertEqual(Set(LintRegistry.all.map(\.id)).count, LintRegistry.all.count)
    }

    func testTriggeringAndNonTriggeringExamples() throws {
        let db = try StandIn.makeDatabase(prefix: "lintex")
        defer { TestServer.drop(db.name) }
        let conn = db.conn
        for lint in LintRegistry.all {
            for (i, example) in lint.triggering.enumerated() {
                let findings = try run(lint, example, conn)
                XCTAssertFalse(findings.isEmpty, "\(lint.name): triggering example \(i + 1) produced no finding")
                for f in findings { XCTAssertTrue(f.detail.contains(f.object.name), "\(lint.name): detail must name the object: \(f.detail)") }
            }
            for (i, example) in lint.nonTriggering.enumerated() {
                let findings = try run(lint, example, conn)
                XCTAssertEqual(findings.map(\.detail), [], "\(lint.name): non-triggering example \(i + 1)")
            }
        }
    }

    /// Runs one example in a transaction that is rolled back, and the lint on it.
    func run(_ lint: Lint, _ example: String, _ conn: PostgresConnection) throws -> [Finding] {
        try conn.query("BEGIN")
        defer { _ = try? conn.query("ROLLBACK") }
        do { _ = try conn.runScript(example) } catch {
            XCTFail("\(lint.name): example failed: \(error)\n\(example)")
            return []
        }
        let result = try Auditor.run(conn, lints: [lint])
        XCTAssertEqual(result.failedLints, [:], lint.name)
        return result.findings.filter { $0.lint == lint.name }
    }
}
