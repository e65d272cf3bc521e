import Foundation
@testable import RLSKit
import TestSupport
import XCTest

/// The README's examples of the access language run as written against the fixtures they describe.
final class ReadmeLanguageTests: XCTestCase {
    /// The README code block that starts with `first`.
    func block(startingWith first: String) throws -> String {
        let readme = try String(contentsOfFile: OurSchema.root + "/README.md", encoding: .utf8)
        let parts = readme.components(separatedBy: "```\n")
        guard let b = parts.first(where: { $0.hasPrefix(first) }) else {
            XCTFail("README has no block starting with \(first)")
            return ""
        }
        return b
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
