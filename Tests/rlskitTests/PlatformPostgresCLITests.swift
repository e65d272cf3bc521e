import Foundation
import Postgres
import TestSupport
import XCTest

/// On the throwaway server `postgres` is not a superuser, as on hosted Supabase: what needs a
/// superuser fails with file:line, what the platform lets `postgres` do works.
final class PlatformPostgresCLITests: XCTestCase {
    var dirs: [String] = []
    var dbs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
        for d in dbs { TestServer.drop(d) }
    }

    /// A folder holding `m/` (migrations) and `t/` (tests) with the given files.
    func project(migrations: [String: String], tests: [String: String] = [:]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (sub, files) in [("m", migrations), ("t", tests)] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
            for (n, t) in files { try t.write(toFile: dir + "/\(sub)/" + n, atomically: true, encoding: .utf8) }
        }
        return dir
    }

    func apply(_ dir: String) throws -> CLI.Outcome {
        try CLI.run(["apply", "--dir", dir + "/m"], environment: ["TMPDIR": dir], directory: dir)
    }

    func testMigrationNeedingSuperuserFailsWithFileLine() throws {
        let dir = try project(migrations: [
            "0001_profiles.sql": "create table public.notes (id int primary key);\n",
            "0002_escalate.sql": "-- needs a superuser\nalter role postgres superuser;\n",
        ])
        let r = try apply(dir)
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertTrue(r.stderr.contains("0002_escalate.sql:2:1: "), r.stderr)
        XCTAssertTrue(
            r.stderr.contains("it ran as postgres, which is not a superuser here, as on hosted Supabase"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)

        try "alter table auth.users add column plan text;\n".write(
            toFile: dir + "/m/0002_escalate.sql", atomically: true, encoding: .utf8)
        let owner = try apply(dir)
        XCTAssertEqual(owner.code, 3, owner.output)
        XCTAssertTrue(owner.stderr.contains("0002_escalate.sql:1:1: must be owner of table users"), owner.stderr)
        XCTAssertTrue(owner.stderr.contains("would fail there too"), owner.stderr)
    }

    func testUntrustedExtensionFailsTrustedOnesWork() throws {
        let dir = try project(migrations: [
            "0001_ext.sql": """
            create extension if not exists dblink with schema extensions;
            create extension if not exists pgrowlocks with schema extensions;
            create extension if not exists postgres_fdw with schema extensions;
            create extension if not exists pg_stat_statements with schema extensions;

            """,
            "0002_file_fdw.sql": "\n\ncreate extension file_fdw;\n",
        ])
        let r = try apply(dir)
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertTrue(r.stdout.contains("applied 0001_ext ("), r.stdout + "\n---\n" + r.stderr)
        XCTAssertTrue(r.stderr.contains("0002_file_fdw.sql:3:1: permission denied to create extension"), r.stderr)
        XCTAssertTrue(r.stderr.contains("would fail there too"), r.stderr)
    }

    /// The most common migration (a sign-up trigger on auth.users) and a storage policy apply
    /// as postgres; a pgTAP file sees postgres, no superuser, and the trigger firing.
    func testSignupTriggerAndStoragePolicyApplyAsPostgres() throws {
        let dir = try project(
            migrations: [
                "0001_profiles.sql": """
                create table public.profiles (id uuid primary key references auth.users (id) on delete cascade, email text);
                alter table public.profiles enable row level security;
                create policy "own profile" on public.profiles for select to authenticated using (id = auth.uid());
                grant select on public.profiles to authenticated;
                create function public.handle_new_user() returns trigger language plpgsql security definer
                set search_path = '' as $$
                begin
                  insert into public.profiles (id, email) values (new.id, new.email);
                  return new;
                end
                $$;
                create trigger on_auth_user_created after insert on auth.users
                  for each row execute function public.handle_new_user();
                create policy "own files" on storage.objects for select to authenticated
                  using (bucket_id = 'docs' and owner = auth.uid());

                """
            ],
            tests: [
                "roles_test.sql": """
                begin;
                select plan(3);
                select is(current_user::text, 'postgres', 'files run as postgres');
                select is((select rolsuper from pg_roles where rolname = current_user), false, 'postgres is not a superuser');
                insert into auth.users (id, email) values ('11111111-1111-4111-8111-111111111111', 'a@x.test');
                select is((select email from public.profiles), 'a@x.test', 'the sign-up trigger made the profile');
                select * from finish();
                rollback;

                """
            ])
        let r = try CLI.run(
            ["check", "--dir", dir + "/m", "--tests", dir + "/t"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertTrue(r.stdout.contains("1 migration applied"), r.output)
        XCTAssertTrue(r.stdout.contains("; postgres is not a superuser, as on hosted Supabase"), r.output)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +3 passed, 0 failed"#, options: .regularExpression), r.output)
    }

    /// `rlskit pgtap` on the throwaway server runs the project's files as postgres too.
    func testPgTAPFilesRunAsPostgres() throws {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for sub in ["supabase/migrations", "supabase/tests"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try "create table public.notes (id int primary key);\n".write(
            toFile: dir + "/supabase/migrations/20250101000000_notes.sql", atomically: true, encoding: .utf8)
        try """
        begin;
        select plan(2);
        select is((select rolsuper from pg_roles where rolname = current_user), false, 'not a superuser');
        select throws_ok('alter role postgres superuser', '42501', null, 'cannot make itself one');
        select * from finish();
        rollback;

        """.write(toFile: dir + "/supabase/tests/roles_test.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["pgtap"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("2 passed"), r.output)
    }

    /// On a database the user gives, rlskit changes no role: postgres keeps what it had.
    func testOwnDatabaseRolesUnchanged() throws {
        let db = try TestServer.makeDatabase(prefix: "nosuper")
        dbs.append(db.name)
        let dir = try project(migrations: ["0001_t.sql": "create table public.t (id int);\n"])
        let r = try CLI.run(["apply", "--dir", dir + "/m", "--database-url", db.connectionString.raw])
        XCTAssertEqual(r.code, 0, r.output)
        let conn = try PostgresConnection(db.connectionString)
        let row = try conn.query(
            """
            select rolsuper,
                   exists (select 1 from pg_auth_members m join pg_roles g on g.oid = m.roleid
                            where m.member = r.oid and g.rolname = 'supabase_storage_admin') as storage,
                   exists (select 1 from pg_roles where rolname = 'supabase_realtime_admin') as realtime
              from pg_roles r where rolname = 'postgres'
            """
        ).rows[0]
        XCTAssertTrue(try row.decode("rolsuper") as Bool)
        XCTAssertFalse(try row.decode("storage") as Bool)
        XCTAssertFalse(try row.decode("realtime") as Bool)
    }
}
