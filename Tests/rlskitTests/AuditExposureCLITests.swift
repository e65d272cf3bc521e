import Foundation
import Postgres
import TestSupport
import XCTest

/// What the audit counts as exposed: the access files' `expose` lines and `config.toml`'s
/// `[api] schemas`; the platform's and the extensions' own objects are never reported.
final class AuditExposureCLITests: XCTestCase {
    static let leaky = """
        create schema api;
        grant usage on schema api to anon, authenticated;
        create table api.leaky (id int);
        grant select on api.leaky to anon;
        """

    /// `check`: an `expose api` line makes the audit look at schema `api` too.
    func testAccessFileExposeLineFeedsTheAudit() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try project(in: tmp, migration: Self.leaky, access: "expose public\nexpose api\n")
        let r = try CLI.run(["check"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("exposed schemas checked: public, api (supabase/tests/notes.rls)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("rls_disabled_in_public  table api.leaky"), r.stdout)
        let without = try CLI.run(
            ["check", "--exposed-schemas", "public"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertFalse(without.stdout.contains("api.leaky"), without.stdout)
    }

    /// `check`: config.toml and the access file together; exposing the platform's schemas
    /// and installing extensions in public under the automatic grants reports none of theirs.
    func testPlatformAndExtensionObjectsNeverReported() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try project(
            in: tmp,
            migration: Self.leaky + """

                create extension if not exists tablefunc with schema public;
                create extension if not exists dblink with schema public;
                create extension if not exists pg_trgm with schema public;
                """, access: "expose api\n")
        try "[api]\nschemas = [\"auth\", \"storage\", \"realtime\", \"extensions\", \"vault\", \"graphql\"]\n".write(
            toFile: tmp + "/supabase/config.toml", atomically: true, encoding: .utf8)
        let r = try CLI.run(["check", "--grants", "automatic"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(
            r.stdout.contains(
                "exposed schemas checked: auth, storage, realtime, extensions, vault, graphql, public, graphql_public, api "
                    + "(supabase/config.toml and supabase/tests/notes.rls)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("table api.leaky"), r.stdout)
        let objects = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
        for line in objects {
            for schema in ["auth", "storage", "realtime", "extensions", "vault", "graphql"] {
                XCTAssertFalse(line.contains(" \(schema)."), String(line))
            }
            for name in ["crosstab", "connectby", "dblink", "similarity", "gtrgm"] where !line.contains("extension ") {
                XCTAssertFalse(line.contains(name), String(line))
            }
        }
    }

    /// `rlskit audit` in a project folder takes `[api] schemas` from its config.toml.
    func testAuditCommandReadsConfigSchemas() throws {
        let db = try StandIn.makeDatabase(prefix: "expose")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.leaky)
        db.conn.close()
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/migrations", withIntermediateDirectories: true)
        try "[api]\nschemas = [\"api\"]\n".write(
            toFile: tmp + "/supabase/config.toml", atomically: true, encoding: .utf8)
        let url = db.connectionString.raw
        let r = try CLI.run(["audit", "--database-url", url], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(
            r.stdout.contains("exposed schemas checked: api, public, graphql_public (supabase/config.toml)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("table api.leaky"), r.stdout)
        let given = try CLI.run(["audit", "--database-url", url, "--exposed-schemas", "public"], directory: tmp)
        XCTAssertFalse(given.stdout.contains("api.leaky"), given.stdout)
    }

    func project(in dir: String, migration: String, access: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/supabase/migrations", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/supabase/tests", withIntermediateDirectories: true)
        try
            (migration + """

                create table public.notes (id uuid primary key default gen_random_uuid(), owner uuid);
                create index on public.notes (owner);
                alter table public.notes enable row level security;
                create policy "owners read" on public.notes for select to authenticated using (owner = (select auth.uid()));
                grant select on public.notes to authenticated;
                """).write(toFile: dir + "/supabase/migrations/20260601000000_a.sql", atomically: true, encoding: .utf8)
        try (access + "table public.notes\n  owner owner\n  read owner\n  write nobody\n").write(
            toFile: dir + "/supabase/tests/notes.rls", atomically: true, encoding: .utf8)
    }
}
