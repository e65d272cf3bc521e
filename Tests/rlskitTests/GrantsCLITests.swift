import Foundation
import TestSupport
import XCTest

/// A project written against the automatic grants passes as it does in production; with
/// --grants explicit its denials name the regime; the audit sees what automatic grants leak.
final class GrantsCLITests: XCTestCase {
    static var fixture: String { Provisioned.repositoryRoot + "/Tests/Fixtures/supabase-grants/supabase" }

    func check(_ extra: [String], dir: String = fixture + "/migrations", tests: String = fixture + "/tests") throws
        -> CLI.Outcome
    {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        return try CLI.run(
            ["check", "--dir", dir, "--tests", tests] + extra, environment: ["TMPDIR": tmp], directory: tmp)
    }

    func testOldProjectPassesUnderAutomaticAndNamesTheRegimeUnderExplicit() throws {
        let auto = try check([])
        XCTAssertEqual(auto.code, 0, auto.output)
        XCTAssertTrue(
            auto.stdout.contains(
                "grants automatic (the first migration, 20240301000000, predates 2026-05-30; as production gave them before 2026-10-30)"
            ), auto.stdout)

        let explicit = try check(["--grants", "explicit"])
        XCTAssertEqual(explicit.code, 1, explicit.output)
        XCTAssertTrue(explicit.stdout.contains("grants explicit (from --grants)"), explicit.stdout)
        XCTAssertTrue(
            explicit.stdout.contains(
                "— grants are explicit here (from --grants); the migrations must GRANT to the API roles, or pass --grants automatic"
            ), explicit.stdout)

        let bad = try check(["--grants", "sometimes"])
        XCTAssertEqual(bad.code, 2, bad.output)
        XCTAssertTrue(bad.stderr.contains("--grants must be automatic or explicit (got 'sometimes')"), bad.stderr)
    }

    /// Revoking a SECURITY DEFINER function from PUBLIC only, and a view over auth.users, leak
    /// under automatic grants: the audit reports both then, and neither under explicit.
    func testAuditSeesWhatAutomaticGrantsLeak() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try """
        create view public.member_emails with (security_invoker = false) as select id, email from auth.users;
        create function public.reset_everything() returns void language sql security definer set search_path = ''
          as $$ select $$;
        revoke execute on function public.reset_everything() from public;
        """.write(toFile: tmp + "/m/20240101000000_leaks.sql", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: tmp + "/t", withIntermediateDirectories: true)
        let auto = try check([], dir: tmp + "/m", tests: tmp + "/t")
        XCTAssertEqual(auto.code, 1, auto.output)
        XCTAssertTrue(auto.stdout.contains("auth_users_exposed"), auto.stdout)
        XCTAssertTrue(auto.stdout.contains("anon_security_definer_function_executable"), auto.stdout)
        let explicit = try check(["--grants", "explicit"], dir: tmp + "/m", tests: tmp + "/t")
        XCTAssertFalse(explicit.stdout.contains("anon_security_definer_function_executable"), explicit.stdout)
    }
}

extension GrantsCLITests {
    /// `rlskit test` on a throwaway server models the same regime as `check`.
    func testTestCommandModelsTheSameRegime() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: tmp + "/supabase")
        let auto = try CLI.run(["test"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(auto.code, 0, auto.output)
        XCTAssertTrue(auto.stderr.contains("; grants automatic (the first migration, 20240301000000"), auto.stderr)
        let explicit = try CLI.run(["test", "--grants", "explicit"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(explicit.code, 1, explicit.output)
        XCTAssertTrue(explicit.stdout.contains("— grants are explicit here (from --grants)"), explicit.output)
    }

    /// `rlskit pgtap` on a throwaway server models it too, and takes `--grants`.
    func testPgTAPCommandTakesGrants() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/tests", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture + "/migrations", toPath: tmp + "/supabase/migrations")
        try """
        begin;
        select plan(1);
        set local role authenticated;
        select lives_ok('select count(*) from public.notes', 'authenticated can query notes');
        select * from finish();
        rollback;
        """.write(toFile: tmp + "/supabase/tests/notes_test.sql", atomically: true, encoding: .utf8)
        let auto = try CLI.run(["pgtap"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(auto.code, 0, auto.output)
        XCTAssertTrue(auto.stderr.contains("; grants automatic (the first migration, 20240301000000"), auto.stderr)
        let explicit = try CLI.run(["pgtap", "--grants", "explicit"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(explicit.code, 1, explicit.output)
        XCTAssertTrue(explicit.stderr.contains("; grants explicit (from --grants)"), explicit.stderr)
        XCTAssertTrue(explicit.stdout.contains("permission denied for table notes"), explicit.stdout)
        let bad = try CLI.run(["pgtap", "--grants", "sometimes"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(bad.code, 2, bad.output)
    }
}
