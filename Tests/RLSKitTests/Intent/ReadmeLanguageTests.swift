import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// The access-file language page's examples run as written against the fixtures they describe.
final class ReadmeLanguageTests: XCTestCase {
    /// The code block of docs/access-files.md that starts with `first`.
    func block(startingWith first: String) throws -> String {
        try DocPage.block(startingWith: first, in: "docs/access-files.md") + "\n"
    }

    func testGroupExampleRunsOnTheTeamFixture() throws {
        let report = try TeamFixture.run(access: try block(startingWith: "members public.team_members"))
        XCTAssertTrue(
            report.passed, report.outcomes.filter(\.isFailure).map { $0.message ?? "" }.joined(separator: "\n"))
        XCTAssertGreaterThan(report.outcomes.count, 60)
    }

    func testRoleExampleRunsOnTheRoleFixture() throws {
        let report = try IntentFixture.run(RoleMatrixTests.schema, access: try block(startingWith: "role admin"))
        XCTAssertTrue(
            report.passed, report.outcomes.filter(\.isFailure).map { $0.message ?? "" }.joined(separator: "\n"))
        XCTAssertTrue(report.outcomes.contains { $0.name == "forged admin updates A's row" })
    }
}
