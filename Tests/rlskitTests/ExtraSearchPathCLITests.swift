import Foundation
import RLSKit
import TestSupport
import XCTest

/// The checks run with the search_path PostgREST gives every request: the request's schema,
/// then `[api] extra_search_path` (the platform's default `public, extensions`).
final class ExtraSearchPathCLITests: XCTestCase {
    func testRequestSearchPathIsTheSchemaThenTheExtras() {
        var o = HarnessOptions()
        XCTAssertEqual(o.requestSearchPath(schema: "public"), "public, extensions")
        o.extraSearchPath = ["kit", "Odd Name"]
        XCTAssertEqual(o.requestSearchPath(schema: "api"), "api, kit, \"Odd Name\"")
    }

    /// A policy calls a function whose body calls an unqualified function living in a schema
    /// that only `extra_search_path` names: it works for the API roles, as on the platform.
    func testPolicyReachesAnExtraSearchPathSchemaUnqualified() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try project(in: tmp, extra: #"extra_search_path = ["public", "extensions", "kit"]"#)
        let r = try CLI.run(["check"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("api.extra_search_path"), r.stdout)
        let test = try CLI.run(["test"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(test.code, 0, test.output)
    }

    /// Without the schema in `extra_search_path` the same call fails, as PostgREST's would.
    func testWithoutTheSchemaTheCallFails() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try project(in: tmp, extra: #"extra_search_path = ["public", "extensions"]"#)
        let r = try CLI.run(["check"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("is_tagged(text) does not exist"), r.stdout)
        let test = try CLI.run(["test"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(test.code, 1, test.output)
    }

    func project(in dir: String, extra: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/supabase/migrations", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/supabase/tests", withIntermediateDirectories: true)
        try """
        create schema kit;
        grant usage on schema kit to anon, authenticated, service_role;
        create function kit.is_tagged(t text) returns boolean language sql immutable as $$ select t like 'ok%' $$;
        create function public.visible(t text) returns boolean language plpgsql stable as $$
        begin
          return is_tagged(t);
        end $$;
        create table public.notes (
          id uuid primary key default gen_random_uuid(), owner uuid, tag text not null default 'ok'
        );
        alter table public.notes enable row level security;
        create policy "own tagged notes" on public.notes for select to authenticated
          using (owner = (select auth.uid()) and public.visible(tag));
        grant select on public.notes to authenticated;
        """.write(toFile: dir + "/supabase/migrations/20260601000000_notes.sql", atomically: true, encoding: .utf8)
        try "table public.notes\n  owner owner\n  read owner\n  write nobody\n".write(
            toFile: dir + "/supabase/tests/notes.rls", atomically: true, encoding: .utf8)
        try "[api]\nschemas = [\"public\"]\n\(extra)\n".write(
            toFile: dir + "/supabase/config.toml", atomically: true, encoding: .utf8)
    }
}
