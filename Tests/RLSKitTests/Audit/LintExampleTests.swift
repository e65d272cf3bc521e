import Foundation
import Postgres
import Synchronization
import TestSupport
import XCTest

@testable import RLSKit

/// Every lint's own examples, on a real server with the Supabase stand-in (SwiftLint style):
/// one test per lint (generated into LintExampleTests+PerLint.swift), each triggering example
/// reporting exactly the objects it names, each non-triggering one reporting nothing.
final class LintExampleTests: XCTestCase {
    func testEveryLintHasExamplesThatNameWhatTheyReport() {
        for lint in LintRegistry.all {
            XCTAssertFalse(lint.triggering.isEmpty, lint.name)
            XCTAssertFalse(lint.nonTriggering.isEmpty, lint.name)
            for (i, ex) in lint.triggering.enumerated() {
                XCTAssertFalse(
                    ex.reports.isEmpty, "\(lint.name): triggering example \(i + 1) names no object it reports")
            }
            for (i, ex) in lint.nonTriggering.enumerated() {
                XCTAssertEqual(ex.reports, [], "\(lint.name): non-triggering example \(i + 1) names objects")
            }
        }
        XCTAssertEqual(Set(LintRegistry.all.map(\.name)).count, LintRegistry.all.count)
        XCTAssertEqual(Set(LintRegistry.all.map(\.id)).count, LintRegistry.all.count)
    }

    /// One database with the stand-in for all examples; each example runs in a rolled-back transaction.
    private static let database = Mutex<ConnectionString?>(nil)

    func connection() throws -> PostgresConnection {
        let cs = try Self.database.withLock { s -> ConnectionString in
            if let s { return s }
            let db = try StandIn.makeDatabase(prefix: "lintex")
            s = db.connectionString
            return db.connectionString
        }
        return try PostgresConnection(cs)
    }

    func checkExamples(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let lint = try XCTUnwrap(LintRegistry.named(name), "\(name) is not registered", file: file, line: line)
        let conn = try connection()
        for (i, example) in lint.triggering.enumerated() {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(
                findings.map(\.object.display).sorted(), example.reports.sorted(),
                "\(lint.name): triggering example \(i + 1)", file: file, line: line)
            for f in findings {
                XCTAssertTrue(
                    f.detail.contains(f.object.name), "\(lint.name): detail must name the object: \(f.detail)",
                    file: file, line: line)
                for placeholder in ["<table>", "<view>", "<function>", "<extension>", "<column>", "…"] {
                    XCTAssertFalse(
                        f.remediation.contains(placeholder),
                        "\(lint.name): the fix names real objects: \(f.remediation)", file: file, line: line)
                }
            }
        }
        for (i, example) in lint.nonTriggering.enumerated() {
            // A lint may list a case it grades lower (INFO) for review; that is not triggering it.
            let findings = try run(lint, example.sql, conn).filter { $0.level == lint.level }
            XCTAssertEqual(
                findings.map(\.detail), [], "\(lint.name): non-triggering example \(i + 1)", file: file, line: line)
        }
    }

    func testFixTextsNameTheRealObjects() throws {
        let conn = try connection()
        func fix(_ name: String) throws -> [String] {
            let lint = try XCTUnwrap(LintRegistry.named(name))
            return try run(lint, lint.triggering[0].sql, conn).map(\.remediation)
        }
        XCTAssertEqual(try fix("unindexed_policy_column"), ["`create index on public.notes (user_id);`"])
        XCTAssertEqual(try fix("policy_exists_rls_disabled"), ["`alter table public.notes enable row level security;`"])
        XCTAssertEqual(
            try fix("extension_in_public"),
            [
                "Install extensions in schema `extensions`: `alter extension pg_trgm set schema extensions;` (or drop and recreate it there)."
            ])
        XCTAssertTrue(
            try fix("anon_security_definer_function_executable")[0].contains(
                "`revoke execute on function public.wipe(uuid) from public, anon;`"))
        // Merging ORed policies would keep the leak: the fix names the one that widens access.
        let merge = try fix("multiple_permissive_policies")
        XCTAssertEqual(merge.count, 1)
        XCTAssertTrue(
            merge[0].hasPrefix("Check the intent first: \"published notes\" does not compare rows with the caller"),
            merge[0])
        XCTAssertTrue(merge[0].contains("widens what \"own notes\" allows for authenticated"), merge[0])
        // A policy that checks the caller through a helper does not widen the other one.
        let lint = try XCTUnwrap(LintRegistry.named("multiple_permissive_policies"))
        let helper = try run(lint, lint.triggering[1].sql, conn).map(\.remediation)
        XCTAssertEqual(helper.count, 1)
        XCTAssertTrue(helper[0].hasPrefix("Check the intent first: these policies are ORed"), helper[0])
        // A helper in another schema called with the row's column compares the row; a claim test does not.
        let claim = try run(lint, lint.triggering[2].sql, conn).map(\.remediation)
        XCTAssertEqual(claim.count, 1)
        XCTAssertTrue(
            claim[0].hasPrefix(
                "Check the intent first: \"support reads\" does not compare rows with the caller, and policies are ORed, so it widens what \"crew projects\" allows"
            ), claim[0])
    }

    /// The self-comparison fix names a column the policy's table has, or none.
    func testSelfComparisonFixNamesOnlyRealColumns() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("policy_self_comparison"))
        XCTAssertEqual(
            try run(lint, lint.triggering[0].sql, conn).map(\.remediation),
            [
                "Compare with the policy's own row instead: `memberships.organization_id = projects.organization_id`."
            ])
        let fixes = try run(lint, lint.triggering[1].sql, conn).sorted { $0.object.display < $1.object.display }
            .map(\.remediation)
        XCTAssertEqual(
            fixes,
            [
                "Compare m.org_id with the policy's own row instead: the column of notes that references orgs (notes has no column org_id).",
                "Compare with the policy's own row instead: `m.org_id = projects.org_ref`.",
            ])
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
