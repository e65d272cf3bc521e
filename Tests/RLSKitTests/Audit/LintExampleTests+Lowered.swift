import Postgres
import XCTest

@testable import RLSKit

/// A workflow status graded lower (not a hole), and a NOT EXISTS self-comparison (a hole for outsiders).
extension LintExampleTests {
    func testWorkflowStatusIsListedAtInfoAndPrivilegedStatusIsAWarn() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("own_row_update_privilege_column"))
        for example in lint.nonTriggering.suffix(2) {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(findings.map(\.level), [.info], example.sql)
            XCTAssertTrue(findings.first?.detail.hasSuffix("so it is listed for review only") ?? false, example.sql)
            XCTAssertNil(findings.first?.metadata["level"], example.sql)
        }
        // The same status with a paid value, an approved label or a server function that sets it.
        for example in lint.triggering.suffix(3) {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(findings.map(\.level), [.warn], example.sql)
            XCTAssertFalse(findings.first?.detail.contains("review only") ?? true, example.sql)
        }
    }

    /// Under NOT EXISTS the subquery sees rows through RLS, none for an outsider: an ERROR that
    /// says both effects (strangers pass, members are locked out); the proof decides its level.
    func testSelfComparisonUnderNotExistsSaysStrangersPass() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("policy_self_comparison"))
        for example in lint.triggering.suffix(2) {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(findings.map(\.level), [.error], example.sql)
            XCTAssertTrue(findings.first?.detail.contains("strangers pass it") ?? false, example.sql)
        }
        let plain = try run(lint, lint.triggering[0].sql, conn)
        XCTAssertEqual(plain.map(\.level), [.error])
        XCTAssertTrue(plain.first?.detail.hasSuffix("always true, so it restricts nothing") ?? false)
    }
}
