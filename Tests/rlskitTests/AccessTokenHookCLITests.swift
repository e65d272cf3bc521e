import Foundation
import TestSupport
import XCTest

/// `rlskit check` runs the hook config.toml names; `rlskit test` takes one on the command line.
final class AccessTokenHookCLITests: XCTestCase {
    static let migration = """
        create table public.notes (
          id bigint generated always as identity primary key,
          author_id uuid not null default auth.uid() references auth.users (id),
          body text not null default ''
        );
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to authenticated;
        grant all on public.notes to service_role;
        create policy own on public.notes for all to authenticated
          using (author_id = (select auth.uid())) with check (author_id = (select auth.uid()));
        create policy staff_reads on public.notes for select to authenticated
          using (((select auth.jwt()) ->> 'tier') = 'staff');
        create function public.hook(event jsonb) returns jsonb language sql stable as $$
          select jsonb_build_object('claims', jsonb_set(event -> 'claims', '{tier}', %TIER%)) $$;
        grant usage on schema public to supabase_auth_admin;
        revoke execute on function public.hook(jsonb) from public, anon, authenticated;
        grant execute on function public.hook(jsonb) to supabase_auth_admin;
        """

    static let access = """
        role staff
          claim tier = staff
        table public.notes
          owner author_id
          read owner or staff
          write owner
        """

    func project(tier: String) throws -> String {
        let dir = try CLI.temporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/supabase/migrations", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/supabase/tests", withIntermediateDirectories: true)
        try Self.migration.replacingOccurrences(of: "%TIER%", with: tier).write(
            toFile: dir + "/supabase/migrations/20260101000000_notes.sql", atomically: true, encoding: .utf8)
        try Self.access.write(toFile: dir + "/supabase/tests/access.rls", atomically: true, encoding: .utf8)
        try "[auth.hook.custom_access_token]\nenabled = true\nuri = \"pg-functions://postgres/public/hook\"\n".write(
            toFile: dir + "/supabase/config.toml", atomically: true, encoding: .utf8)
        return dir
    }

    func testCheckRunsTheConfiguredHook() throws {
        let good = try project(tier: "'null'")
        defer { try? FileManager.default.removeItem(atPath: good) }
        let ok = try CLI.run(["check"], environment: ["TMPDIR": good], directory: good)
        XCTAssertEqual(ok.code, 0, ok.output)
        XCTAssertTrue(
            ok.stdout.contains("custom access token hook pg-functions://postgres/public/hook runs for the test users"),
            ok.stdout)

        let leaky = try project(tier: "coalesce(event -> 'claims' -> 'user_metadata' -> 'tier', 'null')")
        defer { try? FileManager.default.removeItem(atPath: leaky) }
        let bad = try CLI.run(["check"], environment: ["TMPDIR": leaky], directory: leaky)
        XCTAssertEqual(bad.code, 1, bad.output)
        XCTAssertTrue(bad.stdout.contains("public.notes · select · as forged staff"), bad.stdout)
    }

    func testABadHookNameIsExit2() throws {
        let dir = try project(tier: "'null'")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(
            ["test", "--access-token-hook", "hook", "supabase/tests"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertTrue(r.stderr.contains("--access-token-hook must be SCHEMA.FUNCTION (got 'hook')"), r.stderr)
        let missing = try CLI.run(
            ["test", "--access-token-hook", "public.nope", "supabase/tests"], environment: ["TMPDIR": dir],
            directory: dir)
        XCTAssertEqual(missing.code, 2, missing.output)
        XCTAssertTrue(missing.stderr.contains("public.nope(jsonb) does not exist"), missing.stderr)
    }
}
