import Postgres
import XCTest

@testable import RLSKit

/// Cases graded lower because what they find is not a hole: a workflow status, a NOT EXISTS lockout.
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

    func testSelfComparisonUnderNotExistsIsALockoutWarn() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("policy_self_comparison"))
        for example in lint.triggering.suffix(2) {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(findings.map(\.level), [.warn], example.sql)
            XCTAssertTrue(findings.first?.detail.contains("inside NOT EXISTS") ?? false, example.sql)
        }
        // The same mistake under a plain EXISTS lets everyone in: still an ERROR.
        let plain = try run(lint, lint.triggering[0].sql, conn)
        XCTAssertEqual(plain.map(\.level), [.error])
        XCTAssertTrue(plain.first?.detail.hasSuffix("always true, so it restricts nothing") ?? false)
    }
}
