import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A failed matrix check names the policies that let its row through or blocked it.
final class BlameTests: XCTestCase {
    /// One database, unrelated bugs: a leaky read, a missing insert policy, a restrictive policy
    /// that blocks deleting, storage read and delete policies without the folder check, and no
    /// storage update policy (so an upload cannot overwrite).
    static let bugs = """
        drop policy "own notes: read" on public.notes;
        create policy "notes for everyone" on public.notes for select to authenticated using (true);
        drop policy "own notes: insert" on public.notes;
        create policy "never delete" on public.notes as restrictive for delete to authenticated using (not done);
        drop policy "Users delete objects in their own folder" on storage.objects;
        drop policy "Users read objects in their own folder" on storage.objects;
        create policy "read any avatar" on storage.objects for select to authenticated using (bucket_id = 'avatars');
        drop policy "Users update objects in their own folder" on storage.objects;
        create policy "delete any avatar" on storage.objects for delete to authenticated using (bucket_id = 'avatars');
        """

    nonisolated(unsafe) static var cached: TestReport?

    func report() throws -> TestReport {
        if let r = Self.cached { return r }
        let r = try Fixture.run(breakage: Self.bugs)
        Self.cached = r
        return r
    }

    func failure(_ suite: String, _ name: String) throws -> TestOutcome {
        let o = try XCTUnwrap(try report().outcomes.first { $0.suite == suite && $0.name == name }, name)
        XCTAssertEqual(o.status, .failed, "\(name): \(o.message ?? "")")
        return o
    }

    func testLeakySelectPolicyIsNamed() throws {
        let o = try failure("public.notes", "A reads B's row")
        let line = "allowed by policy \"notes for everyone\" (permissive, USING true)"
        XCTAssertEqual(o.policies, [line])
        // As docs/testing.md shows it.
        let message =
            "public.notes · select · as A: expected: the row not visible (a count of 0, or denied); got: the row visible (a count of 1) — "
            + line
        XCTAssertEqual(o.message, message)
        XCTAssertTrue(
            try DocPage.block(after: "## Which policies decided a failed check", in: "docs/testing.md").contains(
                message))
    }

    func testMissingInsertPolicyIsSaid() throws {
        let o = try failure("public.notes", "A inserts own row")
        XCTAssertEqual(o.policies, ["blocked: no permissive INSERT policy for authenticated"])
        XCTAssertTrue(o.message?.contains("; got: denied by RLS (") ?? false, o.message ?? "")
    }

    func testRestrictivePolicyThatBlocksIsNamed() throws {
        let o = try failure("public.notes", "A deletes own row")
        XCTAssertEqual(o.policies, ["blocked by restrictive policy \"never delete\" (USING (NOT done))"])
        XCTAssertTrue(o.message?.contains("; got: 0 rows affected — blocked by") ?? false, o.message ?? "")
    }

    func testStorageObjectLeakIsNamed() throws {
        let list = try failure("bucket avatars", "A lists B's object")
        XCTAssertEqual(
            list.policies, ["allowed by policy \"read any avatar\" (permissive, USING (bucket_id = 'avatars'::text))"])
        let o = try failure("bucket avatars", "A deletes B's object")
        XCTAssertEqual(
            o.policies, ["allowed by policy \"delete any avatar\" (permissive, USING (bucket_id = 'avatars'::text))"])
    }

    /// An overwrite is an upsert: the UPDATE policies judge the object it replaces.
    func testStorageOverwriteWithoutUpdatePolicyIsSaid() throws {
        let o = try failure("bucket avatars", "A overwrites own object")
        XCTAssertEqual(o.policies, ["overwrite (UPDATE), row: blocked: no permissive UPDATE policy for authenticated"])
    }

    func testPassingChecksCarryNoPolicies() throws {
        let passed = try report().outcomes.filter { $0.status == .passed }
        XCTAssertFalse(passed.isEmpty)
        XCTAssertTrue(passed.allSatisfy { $0.policies == nil })
    }

    /// Expressions are evaluated with the caller's claims (auth.uid() is A's), command by command.
    func testLockoutNamesThePoliciesThatDoNotMatch() throws {
        let report = try Fixture.run(
            breakage: """
                drop policy "own notes: update" on public.notes;
                create policy "update others' notes" on public.notes for update to authenticated
                  using ((select auth.uid()) <> user_id);
                drop policy "own notes: read" on public.notes;
                create policy "open notes" on public.notes for select to authenticated using (not done);
                """)
        let o = try XCTUnwrap(report.outcomes.first { $0.suite == "public.notes" && $0.name == "A updates own row" })
        XCTAssertEqual(o.status, .failed)
        XCTAssertEqual(
            o.policies,
            [
                "blocked: no permissive UPDATE policy for authenticated matches the row (\"update others' notes\" USING (( SELECT auth.uid() AS uid) <> user_id))"
            ])
        // DELETE … WHERE reads the row, so a SELECT policy must let the actor see it.
        let delete = try XCTUnwrap(
            report.outcomes.first { $0.suite == "public.notes" && $0.name == "A deletes own row" })
        XCTAssertEqual(
            delete.policies,
            [
                "DELETE needs the row visible to SELECT: blocked: no permissive SELECT policy for authenticated matches the row (\"open notes\" USING (NOT done))"
            ])
    }

    func testReportsCarryTheResponsiblePolicies() throws {
        let report = try report()
        let json = TestReportWriter.json(report)
        XCTAssertTrue(json.contains("\"policies\": ["))
        XCTAssertTrue(json.contains("allowed by policy \\\"notes for everyone\\\""))
        let html = HTMLReport(command: "test", verdict: "failed", facts: [], tests: report, audit: nil).render()
        XCTAssertTrue(html.contains("Responsible policies"))
        XCTAssertTrue(html.contains("allowed by policy \\\"notes for everyone\\\""))
    }
}
