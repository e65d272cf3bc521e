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

        // supautils' list leaves pg_buffercache out as unsafe.
        try "create extension pg_buffercache;\n".write(
            toFile: dir + "/m/0002_file_fdw.sql", atomically: true, encoding: .utf8)
        let buffers = try apply(dir)
        XCTAssertEqual(buffers.code, 3, buffers.output)
        XCTAssertTrue(
            buffers.stderr.contains("permission denied to create extension \"pg_buffercache\""), buffers.stderr)
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

    /// supautils lets postgres replace a trigger on auth.users and write policies on the auth
    /// tables in its policy_grants; other DDL on them still needs their owner.
    func testAuthTriggersAndPoliciesAllowedOtherDDLNot() throws {
        let dir = try project(migrations: [
            "0001_trigger.sql": """
            create function public.h() returns trigger language plpgsql security definer
            set search_path = '' as $$ begin return new; end $$;
            create trigger on_auth_user_created after insert on auth.users for each row execute function public.h();
            drop trigger if exists on_auth_user_created on auth.users;
            drop trigger if exists never_there on auth.users;
            create trigger on_auth_user_created after insert or update on auth.users
              for each row execute function public.h();

            """,
            "0002_policies.sql": """
            create policy "own user" on auth.users for select to authenticated using (id = auth.uid());
            alter policy "own user" on auth.users using (id = (select auth.uid()));
            create policy "own identities" on auth.identities for select to authenticated using (user_id = auth.uid());
            create policy "own sessions" on auth.sessions for select to authenticated using (user_id = auth.uid());
            create policy r on auth.refresh_tokens for select to authenticated using (false);
            create policy a on auth.audit_log_entries for select to authenticated using (false);
            drop policy "own user" on auth.users;

            """,
        ])
        let r = try apply(dir)
        XCTAssertEqual(r.code, 0, r.output)
        let refused = [
            ("alter table auth.users add column plan text;", "must be owner of table users"),
            ("alter table auth.users enable row level security;", "must be owner of table users"),
            ("alter table auth.users owner to postgres;", "must be owner of table users"),
            ("drop table auth.users cascade;", "must be owner of table users"),
            ("comment on table auth.users is 'x';", "must be owner of table users"),
            ("create table auth.mine (id int);", "permission denied for schema auth"),
            // postgres is no member of GoTrue's role, as on the newest platform.
            (
                "set role supabase_auth_admin;\nalter table auth.users add column plan text;",
                "permission denied to set role \"supabase_auth_admin\""
            ),
        ]
        for (k, (sql, message)) in refused.enumerated() {
            let file = dir + "/m/000\(3 + k)_refused.sql"
            try (sql + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let f = try apply(dir)
            XCTAssertEqual(f.code, 3, sql + "\n" + f.output)
            XCTAssertTrue(f.stderr.contains("_refused.sql:"), f.stderr)
            XCTAssertTrue(f.stderr.contains(message), sql + "\n" + f.stderr)
            XCTAssertTrue(f.stderr.contains("would fail there too"), f.stderr)
            try FileManager.default.removeItem(atPath: file)
        }
    }

    /// A dump's seed turns off triggers with `set session_replication_role = replica`, which
    /// supautils lets postgres set (privileged_role_allowed_configs), as `track_io_timing`.
    func testSeedMaySetSessionReplicationRole() throws {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        try FileManager.default.createDirectory(atPath: dir + "/supabase/migrations", withIntermediateDirectories: true)
        try """
        create table public.parent (id int primary key);
        create table public.child (id int primary key, parent_id int references public.parent (id));

        """.write(toFile: dir + "/supabase/migrations/20240101000000_a.sql", atomically: true, encoding: .utf8)
        try """
        set session_replication_role = replica;
        set track_io_timing = on;
        insert into public.child (id, parent_id) values (1, 7);
        insert into public.parent (id) values (7);
        reset all;

        """.write(toFile: dir + "/supabase/seed.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["apply"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertNotNil(r.output.range(of: #"seeded \S*seed.sql"#, options: .regularExpression), r.output)
    }

    /// postgres owns the database as on the platform, so a `db pull` dump's lines on schema
    /// `public` apply and its revokes there take effect; `extensions` is its own too.
    func testPublicSchemaIsPostgresesAsOnThePlatform() throws {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for sub in ["supabase/migrations", "supabase/tests"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try """
        CREATE SCHEMA IF NOT EXISTS "public";
        ALTER SCHEMA "public" OWNER TO "pg_database_owner";
        COMMENT ON SCHEMA "public" IS 'standard public schema';
        revoke usage on schema public from public, anon;

        """.write(
            toFile: dir + "/supabase/migrations/20240101000000_remote_schema.sql", atomically: true, encoding: .utf8)
        try """
        begin;
        select plan(4);
        select is(obj_description('public'::regnamespace, 'pg_namespace'), 'standard public schema', 'comment');
        select ok(not has_schema_privilege('anon', 'public', 'usage'), 'anon lost usage on public');
        select is((select datdba::regrole::text from pg_database where datname = current_database()), 'postgres', 'db');
        select is((select nspowner::regrole::text from pg_namespace where nspname = 'extensions'), 'postgres', 'ext');
        select * from finish();
        rollback;

        """.write(toFile: dir + "/supabase/tests/owner_test.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["pgtap"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("4 passed"), r.output)
    }

    /// As supautils' after-create script does, postgres owns postgres_fdw's wrapper once it
    /// created the extension, so it may define a server and a user mapping.
    func testForeignServerOnPostgresFDW() throws {
        let dir = try project(migrations: [
            "0001_fdw.sql": """
            create extension if not exists postgres_fdw with schema extensions;
            create server remote foreign data wrapper postgres_fdw options (host 'remote.invalid', dbname 'x');
            create user mapping for postgres server remote options (user 'u', password 'p');

            """
        ])
        let r = try apply(dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("applied 0001_fdw ("), r.output)
        XCTAssertFalse(r.output.contains("password 'p'"), r.output)
    }

    /// supautils' extensions_parameter_overrides: pg_cron lands in pg_catalog, whatever schema
    /// the migration named, and cron.schedule still works for postgres.
    func testPgCronLandsInPgCatalog() throws {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for sub in ["supabase/migrations", "supabase/tests"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        let migration = dir + "/supabase/migrations/20240101000000_cron.sql"
        try """
        create extension if not exists pg_cron;
        select cron.schedule('nightly', '0 3 * * *', 'select 1');

        """.write(toFile: migration, atomically: true, encoding: .utf8)
        try """
        begin;
        select plan(2);
        select is((select extnamespace::regnamespace::text from pg_extension where extname = 'pg_cron'),
                  'pg_catalog', 'pg_cron in pg_catalog');
        select is((select count(*)::int from cron.job), 1, 'the job is scheduled');
        select * from finish();
        rollback;

        """.write(toFile: dir + "/supabase/tests/cron_test.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["pgtap"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("2 passed"), r.output)

        try """
        create extension if not exists pg_cron with schema extensions;
        select cron.schedule('nightly', '0 3 * * *', 'select 1');

        """.write(toFile: migration, atomically: true, encoding: .utf8)
        let named = try CLI.run(["pgtap"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(named.code, 0, named.output)
        XCTAssertTrue(named.stdout.contains("2 passed"), named.output)
    }

    /// Event triggers and FOR ALL TABLES publications are allowed on Supabase through supautils
    /// but need a superuser on plain PostgreSQL: the line says so instead of "would fail there too".
    func testSupautilsOnlyStatementsSayTheyWorkThere() throws {
        for (sql, line) in [
            (
                """
                create function public.log_ddl() returns event_trigger language plpgsql as $$ begin end $$;
                create event trigger log_ddl on ddl_command_end execute function public.log_ddl();

                """, 2
            ),
            ("create table public.t (id int primary key);\n\ncreate publication all_pub for all tables;\n", 3),
        ] {
            let dir = try project(migrations: ["0001_a.sql": sql])
            let r = try apply(dir)
            XCTAssertEqual(r.code, 3, r.output)
            XCTAssertTrue(r.stderr.contains("0001_a.sql:\(line):1: "), r.stderr)
            XCTAssertTrue(
                r.stderr.contains("allowed on Supabase through supautils; the throwaway server cannot allow it"),
                r.stderr)
            XCTAssertTrue(r.stderr.contains("--database-url"), r.stderr)
            XCTAssertFalse(r.stderr.contains("would fail there too"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
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
