import Foundation
import Postgres
import TestSupport
import XCTest

/// The throwaway server is a sandbox: a project's SQL (migrations, seeds, scenarios, pgTAP
/// files, what the probe calls) never reaches superuser rights, the server's programs or files,
/// or another server. Every attack ends by writing a marker file through `copy … to program`:
/// if any step had escalated, the marker would exist.
final class SandboxCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { TreeRemoval.remove(d) }
    }

    struct Attack {
        var name: String
        var migration: String
        var tests: [String: String] = [:]
        var config: String? = nil
        /// Text the run's output must show (the refusal), when it stops there.
        var refusal: String? = nil
    }

    /// `copy … to program` writing `marker`: the payload after each escalation.
    static func payload(_ marker: String) -> String {
        "copy (select 1) to program 'touch \(marker)'"
    }

    func run(_ attack: Attack) throws -> (CLI.Outcome, marker: String) {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        let marker = dir + "/pwned"
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/supabase/migrations", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/supabase/tests", withIntermediateDirectories: true)
        try attack.migration.replacingOccurrences(of: "PAYLOAD", with: Self.payload(marker))
            .replacingOccurrences(of: "MARKER", with: marker)
            .write(toFile: dir + "/supabase/migrations/20240101000000_attack.sql", atomically: true, encoding: .utf8)
        for (name, text) in attack.tests {
            try text.replacingOccurrences(of: "PAYLOAD", with: Self.payload(marker))
                .write(toFile: dir + "/supabase/tests/" + name, atomically: true, encoding: .utf8)
        }
        if let config = attack.config {
            try config.write(toFile: dir + "/supabase/config.toml", atomically: true, encoding: .utf8)
        }
        let r = try CLI.run(["check", "--allow-empty"], environment: ["TMPDIR": dir], directory: dir)
        return (r, marker)
    }

    static let notes = """
        create table public.notes (id uuid primary key default gen_random_uuid(), owner uuid references auth.users, body text);
        alter table public.notes enable row level security;
        create policy own on public.notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
        grant select, insert, update, delete on public.notes to authenticated;

        """

    static let access = "table public.notes\n  owner owner\n  read owner\n  write owner\n"

    static let attacks: [Attack] = [
        // From a migration to superuser through a connection back to the server.
        Attack(
            name: "dblink_connect_u to the admin",
            migration: """
                create extension if not exists dblink with schema extensions;
                select extensions.dblink_connect_u('c', 'dbname=postgres user=supabase_admin');
                select extensions.dblink_exec('c', 'alter role postgres superuser');
                PAYLOAD;

                """, refusal: "dblink_connect_u"),
        Attack(
            name: "dblink with a guessed password",
            migration: """
                create extension if not exists dblink with schema extensions;
                select * from extensions.dblink('dbname=postgres user=supabase_admin password=postgres', 'select 1') as t(x int);
                PAYLOAD;

                """, refusal: "connect to another server"),
        Attack(
            name: "postgres_fdw back to the admin",
            migration: """
                create extension if not exists postgres_fdw with schema extensions;
                create server back foreign data wrapper postgres_fdw options (dbname 'postgres');
                create user mapping for postgres server back options (user 'supabase_admin', password 'x');
                create foreign table public.remote_roles (rolname name) server back options (table_name 'pg_authid');
                select * from public.remote_roles;
                PAYLOAD;

                """, refusal: "connect to another server"),
        // CREATEROLE and the server's predefined roles.
        Attack(
            name: "grant pg_execute_server_program",
            migration: "grant pg_execute_server_program to postgres;\nPAYLOAD;\n",
            refusal: "\"pg_execute_server_program\" role memberships are reserved, only superusers can grant them"),
        Attack(
            name: "create role in pg_execute_server_program",
            migration:
                "create role helper in role pg_execute_server_program;\ngrant helper to postgres;\nset role helper;\nPAYLOAD;\n",
            refusal: "\"pg_execute_server_program\" role memberships are reserved"),
        Attack(
            name: "alter group pg_write_server_files add user",
            migration:
                "alter group pg_write_server_files add user postgres;\ncopy (select 'x') to 'MARKER';\n",
            refusal: "\"pg_write_server_files\" role memberships are reserved"),
        Attack(
            name: "create role in a reserved role",
            migration: "create role helper in role supabase_admin;\nPAYLOAD;\n",
            refusal: "\"supabase_admin\" role memberships are reserved"),
        Attack(
            name: "grant a reserved role",
            migration: "grant supabase_admin to postgres;\nPAYLOAD;\n",
            refusal: "\"supabase_admin\" role memberships are reserved"),
        // supautils' reserved roles.
        Attack(
            name: "drop role authenticator", migration: "drop role authenticator;\n",
            refusal: "\"authenticator\" is a reserved role, only superusers can modify it"),
        Attack(
            name: "alter role anon login", migration: "alter role anon login password 'x';\n",
            refusal: "\"anon\" is a reserved role, only superusers can modify it"),
        Attack(
            name: "alter role supabase_auth_admin", migration: "alter role supabase_auth_admin password 'x';\n",
            refusal: "\"supabase_auth_admin\" is a reserved role, only superusers can modify it"),
        Attack(
            name: "rename a reserved role", migration: "alter role supabase_storage_admin rename to mine;\n",
            refusal: "\"supabase_storage_admin\" is a reserved role"),
        Attack(
            name: "drop owned by a reserved role", migration: "drop owned by supabase_auth_admin;\n",
            refusal: "\"supabase_auth_admin\" is a reserved role"),
        // The server's programs and files, directly.
        Attack(name: "copy to program", migration: "PAYLOAD;\n", refusal: "COPY to or from a program"),
        Attack(
            name: "copy from a server file",
            migration: "create table public.t (x text);\ncopy public.t from '/etc/passwd';\n",
            refusal: "COPY to or from a server file"),
        Attack(
            name: "pg_read_file", migration: "select pg_read_file('/etc/passwd');\n",
            refusal: "pg_read_file"),
        Attack(
            name: "lo_export", migration: "select lo_export(lo_from_bytea(0, 'x'), 'MARKER');\n",
            refusal: "lo_export"),
        Attack(
            name: "alter system", migration: "alter system set archive_command = 'touch MARKER';\n",
            refusal: "ALTER SYSTEM"),
        // The project's code run by rlskit's own sessions.
        Attack(
            name: "trigger on storage.buckets fired by config.toml's buckets",
            migration: """
                create function public.on_bucket() returns trigger language plpgsql as $$
                begin
                  execute $x$PAYLOAD$x$;
                  return new;
                end $$;
                create trigger on_bucket before insert on storage.buckets for each row execute function public.on_bucket();

                """,
            config: "[storage.buckets.docs]\npublic = false\n"),
        Attack(
            name: "a policy helper that switches role back during the tests",
            migration: notes + """
                create function public.sneaky() returns boolean language plpgsql as $$
                begin
                  perform set_config('role', 'none', true);
                  execute $x$PAYLOAD$x$;
                  return true;
                exception when others then
                  reset role;
                  execute $x$PAYLOAD$x$;
                  return true;
                end $$;
                create policy sneaky on public.notes for select to authenticated using (public.sneaky());

                """, tests: ["access.rls": access]),
        Attack(
            name: "a sign-up trigger on auth.users",
            migration: notes + """
                create function public.on_signup() returns trigger language plpgsql as $$
                begin
                  perform set_config('role', 'none', true);
                  execute $x$PAYLOAD$x$;
                  return new;
                end $$;
                create trigger on_signup after insert on auth.users for each row execute function public.on_signup();

                """, tests: ["access.rls": access]),
        Attack(
            name: "a scenario's admin step",
            migration: notes,
            tests: [
                "escape.scenario": """
                scenario admin steps run as postgres
                  as admin: select set_config('role', 'none', false)
                    expect 1 row
                  as admin: PAYLOAD
                    expect 1 row affected

                """
            ]),
        Attack(
            name: "a pgTAP file",
            migration: notes,
            tests: [
                "escape_test.sql": """
                begin;
                select plan(1);
                create extension if not exists dblink with schema extensions;
                select extensions.dblink_connect_u('dbname=postgres user=supabase_admin');
                PAYLOAD;
                select ok(true);
                select * from finish();
                rollback;

                """
            ]),
    ]

    /// The second review's escalations: a superuser's code reaching a table the project can
    /// put triggers or defaults on, and settings stored for rlskit's sessions.
    static let reviewAttacks: [Attack] = [
        Attack(
            name: "refint trigger on realtime.messages fired through realtime.send",
            migration: """
                create extension if not exists refint with schema extensions;
                create trigger zz before insert on realtime.messages for each row execute function
                  extensions.check_primary_key('topic', 'pg_class where false; alter role postgres superuser; select 1 from pg_class', 'true or relname');
                select realtime.send('{}'::jsonb, 'e', 'x', false);
                PAYLOAD;

                """),
        Attack(
            name: "a default calling query_to_xml on realtime.messages",
            migration: """
                alter table realtime.messages alter column extension set default
                  (query_to_xml('select 1 from pg_catalog.pg_class where false; alter role postgres superuser', false, false, '')::text);
                select realtime.send('{}'::jsonb, 'e', 'x', false);
                PAYLOAD;

                """),
        Attack(
            name: "a trigger on vault.secrets fired through vault.create_secret",
            migration: """
                create extension if not exists refint with schema extensions;
                create trigger zz before insert on vault.secrets for each row execute function
                  extensions.check_primary_key('name', 'pg_class where false; alter role postgres superuser; select 1 from pg_class', 'true or relname');
                select vault.create_secret('s', 'n');
                PAYLOAD;

                """),
        Attack(
            name: "refint trigger on storage.buckets fired by config.toml's buckets",
            migration: """
                create extension if not exists refint with schema extensions;
                create trigger zz before insert on storage.buckets for each row execute function
                  extensions.check_primary_key('id', 'pg_class where false; alter role postgres superuser; select 1 from pg_class', 'true or relname');

                """,
            tests: [
                "later_test.sql":
                    "begin;\nselect plan(1);\nPAYLOAD;\nselect ok(true);\nselect * from finish();\nrollback;\n"
            ],
            config: "[storage.buckets.evil]\npublic = false\n"),
        Attack(
            name: "an extension in rlskit's own schema", migration: "create extension hstore schema rlskit;\n",
            refusal: "permission denied for schema rlskit"),
        Attack(
            name: "replica mode switches off the auth guard",
            migration: "set session_replication_role = replica;\nalter table auth.users add column pwned text;\n",
            refusal: "must be owner of table users"),
        Attack(
            name: "a role stored on the database",
            migration: "alter database postgres set role = 'postgres';\n",
            refusal: "storing role on a database or role is not allowed"),
        Attack(
            name: "pg_walinspect's readers",
            migration:
                "create extension if not exists pg_walinspect with schema extensions;\nselect * from extensions.pg_get_wal_records_info('0/0', '0/1');\n",
            refusal: "permission denied for function pg_get_wal_records_info"),
    ]

    /// The third review's: an extension handing postgres CREATE on a schema of the platform's,
    /// reserved memberships taken away, roles given to rlskit's own role.
    static let thirdReviewAttacks: [Attack] = [
        Attack(
            name: "an extension into vault gives no CREATE there",
            migration:
                "create extension if not exists pg_trgm schema vault;\ncreate function vault.mine() returns int language sql as 'select 1';\n",
            refusal: "permission denied for schema vault"),
        Attack(
            name: "revoke a reserved membership", migration: "revoke supabase_storage_admin from rlskit_definer;\n",
            refusal: "\"supabase_storage_admin\" role memberships are reserved"),
        Attack(
            name: "alter group drop user", migration: "alter group supabase_realtime_admin drop user postgres;\n",
            refusal: "\"supabase_realtime_admin\" role memberships are reserved"),
        Attack(
            name: "revoke the API roles from authenticator", migration: "revoke authenticated from authenticator;\n",
            refusal: "\"authenticator\" is a reserved role"),
        Attack(
            name: "comment on a reserved role", migration: "comment on role supabase_auth_admin is 'mine';\n",
            refusal: "\"supabase_auth_admin\" is a reserved role"),
        Attack(
            name: "grant a role to rlskit_definer", migration: "grant postgres to rlskit_definer;\n",
            refusal: "\"rlskit_definer\" is a reserved role"),
        Attack(
            name: "grant pg_write_all_data",
            migration: "grant pg_write_all_data to postgres;\ndelete from rlskit.migrations;\n",
            refusal: "\"pg_write_all_data\" role memberships are reserved"),
    ]

    /// The fourth review's: an extension's after-create grants reached what else sat in its
    /// schemas (another extension's restricted routines, pg_cron's job table).
    static let fourthReviewAttacks: [Attack] = [
        Attack(
            name: "a stand-in beside pg_walinspect opens its readers",
            migration: """
                create extension if not exists pg_walinspect with schema extensions;
                create extension if not exists pgjwt with schema extensions;
                select * from extensions.pg_get_wal_records_info('0/0', '0/1');

                """, refusal: "permission denied for function pg_get_wal_records_info"),
        Attack(
            name: "an extension into cron opens cron.job",
            migration: """
                create extension if not exists pg_cron;
                create extension if not exists pg_trgm schema cron;
                insert into cron.job (schedule, command, nodename, nodeport, database, username)
                  values ('* * * * *', 'alter role postgres superuser', '', 5432, 'postgres', 'supabase_admin');

                """, refusal: "permission denied for table job"),
    ]

    /// The fifth review's: a superuser's SECURITY DEFINER function (the webhook trigger) runs as
    /// rlskit_definer, which has the services' memberships postgres has not; project code it
    /// reached ran with them (a grant on auth.users as its owner).
    static let fifthReviewAttacks: [Attack] = [
        Attack(
            name: "a schema net of the project's under the webhook trigger",
            migration: """
                create schema net;
                grant usage on schema net to public;
                create function net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout int)
                  returns bigint language plpgsql as $$ begin execute 'grant select on auth.users to anon'; return 1; end $$;
                \(webhookTable("public.w (x int)"))
                insert into public.w values (1);
                select 1 / 0 where pg_catalog.has_table_privilege('anon', 'auth.users', 'select');

                """, refusal: "would run as rlskit_definer"),
        Attack(
            name: "a cast to json of the project's type in a webhook's row",
            migration: """
                create extension if not exists pg_net with schema extensions;
                create type public.mood as enum ('calm');
                create function public.mood_json(public.mood) returns json language plpgsql as $$
                  begin execute 'grant select on auth.identities to anon'; return '"calm"'::json; end $$;
                create cast (public.mood as json) with function public.mood_json(public.mood);
                \(webhookTable("public.w (m public.mood)"))
                insert into public.w values ('calm');
                select 1 / 0 where pg_catalog.has_table_privilege('anon', 'auth.identities', 'select');

                """, refusal: "would run as rlskit_definer"),
    ]

    static func webhookTable(_ table: String) -> String {
        let name = table.split(separator: " ")[0]
        return """
            create table \(table);
            alter table \(name) enable row level security;
            create trigger hook after insert on \(name) for each row
              execute function supabase_functions.http_request('https://example.com/hook', 'POST', '{}', '{}', '1000');
            """
    }

    func testTheFifthReviewsFindingsHold() throws {
        try assertHold(Self.fifthReviewAttacks)
        // What stays allowed: a webhook on an ordinary table queues its request through the stand-in.
        let (ok, _) = try run(
            Attack(
                name: "a webhook",
                migration: """
                    create extension if not exists pg_net with schema extensions;
                    create type public.mood as enum ('calm');
                    \(Self.webhookTable("public.w (x int, m public.mood)"))
                    insert into public.w values (1, 'calm');
                    select 1 / (select count(*)::int from net.http_request_queue);

                    """))
        XCTAssertEqual(ok.code, 0, ok.output)
    }

    /// Runs each attack: no marker, the refusal shown where one is named, no password printed.
    func assertHold(_ attacks: [Attack], file: StaticString = #filePath, line: UInt = #line) throws {
        for attack in attacks {
            let (r, marker) = try run(attack)
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: marker), "\(attack.name): escaped\n\(r.output)", file: file,
                line: line)
            if let refusal = attack.refusal {
                XCTAssertTrue(r.output.contains(refusal), "\(attack.name): \(r.output)", file: file, line: line)
            }
            XCTAssertFalse(r.output.contains("password="), "\(attack.name): \(r.output)", file: file, line: line)
        }
    }

    func testTheThirdReviewsFindingsHold() throws {
        XCTAssertTrue(Self.thirdReviewAttacks.allSatisfy { $0.refusal != nil })
        try assertHold(Self.thirdReviewAttacks)
        // What stays allowed: an app role given to and taken from authenticator.
        let (ok, _) = try run(
            Attack(
                name: "app role",
                migration: """
                    create role app_reader nologin;
                    grant app_reader to authenticator;
                    revoke app_reader from authenticator;
                    create table public.t (x int);
                    alter table public.t enable row level security;

                    """))
        XCTAssertEqual(ok.code, 0, ok.output)
    }

    func testTheFourthReviewsFindingsHold() throws {
        try assertHold(Self.fourthReviewAttacks)
        // What stays allowed: a stand-in's own functions, and pg_trgm's where it was put.
        let (ok, _) = try run(
            Attack(
                name: "extension objects",
                migration: """
                    create extension if not exists pgjwt with schema extensions;
                    create extension if not exists pg_trgm schema extensions;
                    create table public.t (x text default extensions.sign('{}', 's') check (extensions.similarity(x, x) >= 0));
                    insert into public.t default values;
                    alter table public.t enable row level security;

                    """))
        XCTAssertEqual(ok.code, 0, ok.output)
    }

    /// rlskit puts back the sequences a run moved, reading the highest value of the column each
    /// feeds as its superuser: never through a view of the project's (a sequence may be owned by
    /// a view's column), whose expressions would run with superuser rights.
    func testASequenceOwnedByAViewIsNotReadThroughIt() throws {
        let (r, _) = try run(
            Attack(
                name: "a view a sequence belongs to",
                migration: """
                    create view public.v as
                      select (1 / (1 - pg_catalog.current_setting('is_superuser')::boolean::int))::bigint as id;
                    create sequence public.s owned by public.v.id;

                    """,
                tests: [
                    "seq_test.sql":
                        "begin;\nselect plan(1);\nselect nextval('public.s');\nselect ok(true);\nselect * from finish();\nrollback;\n"
                ]))
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertFalse(r.output.contains("division by zero"), r.output)
    }

    /// The same, for a sequence owned by a table's column of the project's type: reading its
    /// highest value as an integer would run the project's cast (of an enum, of an array of
    /// it) in rlskit's superuser session; the module refused it and the run failed. An integer
    /// column is still read, so the sequence goes back above its rows.
    func testASequenceOwnedByAColumnOfTheProjectsTypeRunsNoCastOfIts() throws {
        for (type, value) in [("public.mood", "'b'"), ("public.mood[]", "array['b']::public.mood[]")] {
            let (r, _) = try run(
                Attack(
                    name: "a cast of \(type)",
                    migration: """
                        create type public.mood as enum ('a', 'b');
                        create function public.as_int(\(type)) returns bigint language sql
                          as 'select (1 / (1 - pg_catalog.current_setting(''is_superuser'')::boolean::int))::bigint';
                        create cast (\(type) as bigint) with function public.as_int(\(type));
                        create table public.m (x \(type));
                        alter table public.m enable row level security;
                        insert into public.m values (\(value));
                        create sequence public.s owned by public.m.x;

                        """,
                    tests: [
                        "seq_test.sql":
                            "begin;\nselect plan(1);\nselect nextval('public.s');\nselect ok(true);\nselect * from finish();\nrollback;\n"
                    ]))
            XCTAssertEqual(r.code, 0, "\(type): \(r.output)")
            XCTAssertFalse(r.output.contains("would run with superuser rights"), "\(type): \(r.output)")
        }
    }

    /// A test may move a sequence to the end of its type (setval is not rolled back): counting
    /// how far it moved must not trap (Int64.min / -1, Int64.max + 1), which crashed rlskit.
    func testASequenceMovedToTheEndOfItsTypeCrashesNothing() throws {
        for (options, value) in [
            ("increment by -1 minvalue -9223372036854775808 maxvalue 0 start 0", "-9223372036854775808"),
            ("increment by 1 minvalue 0 start 0", "9223372036854775807"),
        ] {
            let (r, _) = try run(
                Attack(
                    name: "a sequence \(options)",
                    migration: """
                        create table public.t (x int);
                        alter table public.t enable row level security;
                        create sequence public.s \(options);

                        """,
                    tests: [
                        "seq_test.sql":
                            "begin;\nselect plan(1);\nselect setval('public.s', \(value));\nselect ok(true);\nselect * from finish();\nrollback;\n"
                    ]))
            XCTAssertEqual(r.code, 0, "\(options): \(r.output)")
            XCTAssertFalse(r.output.contains("Fatal error"), "\(options): \(r.output)")
        }
    }

    /// config.toml's sizes are the project's too: one too large for a byte count (finite, or
    /// not) is a file:line mistake, not a crash converting it.
    func testABucketSizeTooLargeCrashesNothing() throws {
        for size in ["99999999999999999999GiB", String(repeating: "9", count: 400)] {
            let (r, _) = try run(
                Attack(
                    name: "file_size_limit \(size.prefix(24))",
                    migration: "create table public.t (x int);\nalter table public.t enable row level security;\n",
                    config: "[storage.buckets.docs]\npublic = false\nfile_size_limit = \"\(size)\"\n"))
            XCTAssertEqual(r.code, 2, "\(size.prefix(24)): \(r.output)")
            XCTAssertTrue(r.output.contains("config.toml:3"), "\(size.prefix(24)): \(r.output)")
            XCTAssertFalse(r.output.contains("Fatal error"), "\(size.prefix(24)): \(r.output)")
        }
    }

    func testTheSecondReviewsEscalationsHold() throws { try assertHold(Self.reviewAttacks) }

    func testNoAttackReachesTheServersPrograms() throws { try assertHold(Self.attacks) }

    /// What supautils allows stays allowed: PostgREST's settings on authenticator, ordinary roles.
    func testWhatThePlatformAllowsStillApplies() throws {
        let (r, _) = try run(
            Attack(
                name: "allowed",
                migration: """
                    alter role authenticator set pgrst.db_aggregates_enabled = 'true';
                    create role app_reader nologin;
                    grant app_reader to authenticator;
                    grant pg_monitor to app_reader;
                    create table public.t (x int);
                    alter table public.t enable row level security;

                    """))
        XCTAssertEqual(r.code, 0, r.output)
    }
}

/// Files a project names for itself (links, `\i`, config.toml's seed paths) are read only
/// inside the folders rlskit was given: never a file elsewhere on the machine.
final class ProjectFilesCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() { for d in dirs { TreeRemoval.remove(d) } }

    /// A secret outside the project, and a project beside it.
    func layout() throws -> (project: String, secret: String) {
        let root = try CLI.temporaryDirectory()
        dirs.append(root)
        let secret = root + "/outside/secret.sql"
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        try "select 'TOPSECRET-4242' as leaked;\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let project = root + "/project"
        for sub in ["supabase/migrations", "supabase/tests"] {
            try FileManager.default.createDirectory(atPath: project + "/" + sub, withIntermediateDirectories: true)
        }
        try "create table public.t (x int);\nalter table public.t enable row level security;\n".write(
            toFile: project + "/supabase/migrations/20240101000000_t.sql", atomically: true, encoding: .utf8)
        return (project, secret)
    }

    func check(_ project: String) throws -> CLI.Outcome {
        try CLI.run(["check", "--allow-empty"], environment: ["TMPDIR": project], directory: project)
    }

    func assertRefused(_ r: CLI.Outcome, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(r.code, 0, r.output, file: file, line: line)
        XCTAssertTrue(r.output.contains(name), r.output, file: file, line: line)
        XCTAssertTrue(r.output.contains("outside the folders rlskit was given"), r.output, file: file, line: line)
        XCTAssertFalse(r.output.contains("TOPSECRET"), r.output, file: file, line: line)
    }

    func testALinkedMigrationOutsideIsNotRead() throws {
        let (project, secret) = try layout()
        try FileManager.default.createSymbolicLink(
            atPath: project + "/supabase/migrations/20240102000000_link.sql", withDestinationPath: secret)
        assertRefused(try check(project), "20240102000000_link.sql")
    }

    func testAPgTAPIncludeOutsideIsNotRead() throws {
        let (project, secret) = try layout()
        try "begin;\nselect plan(1);\n\\i \(secret)\nselect ok(true);\nselect * from finish();\nrollback;\n".write(
            toFile: project + "/supabase/tests/inc_test.sql", atomically: true, encoding: .utf8)
        let r = try check(project)
        XCTAssertTrue(r.output.contains("outside the folders rlskit was given"), r.output)
        XCTAssertFalse(r.output.contains("TOPSECRET"), r.output)
        XCTAssertNotEqual(r.code, 0, r.output)
    }

    /// A seed path outside matches nothing: neither read nor named, so the project cannot probe
    /// what exists there.
    func testASeedPathOutsideIsNotRead() throws {
        let (project, _) = try layout()
        try "[db.seed]\nsql_paths = ['../../outside/secret.sql', '../../outside/*.sql']\n".write(
            toFile: project + "/supabase/config.toml", atomically: true, encoding: .utf8)
        let r = try check(project)
        XCTAssertFalse(r.output.contains("TOPSECRET"), r.output)
        XCTAssertTrue(r.output.contains("no seed files matched"), r.output)
    }

    func testABaselineLinkedOutsideIsNotRead() throws {
        let (project, secret) = try layout()
        try FileManager.default.createSymbolicLink(atPath: project + "/.rlskit-baseline", withDestinationPath: secret)
        let r = try CLI.run(
            ["check", "--allow-empty", "--baseline", ".rlskit-baseline"], environment: ["TMPDIR": project],
            directory: project)
        assertRefused(r, ".rlskit-baseline")
    }

    /// A path on the command line reached through the project's own link does not widen what
    /// rlskit reads.
    func testACommandLinePathThroughAProjectLinkIsNoRoot() throws {
        let (project, secret) = try layout()
        let outside = (secret as NSString).deletingLastPathComponent
        try "select 'TOPSECRET-4242';\n".write(
            toFile: outside + "/20240103000000_leak.sql", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: project + "/linked", withDestinationPath: outside)
        let r = try CLI.run(
            ["check", "--allow-empty", "--dir", "linked"], environment: ["TMPDIR": project], directory: project)
        assertRefused(r, "linked: resolves outside")
        XCTAssertFalse(r.output.contains("20240103000000_leak.sql"), r.output)
    }

    /// A migrations folder that is a link out of the project is not listed: the names there
    /// (migrations, and the .sql files the summary says it skipped) stay unsaid.
    func testAMigrationsFolderLinkedOutsideIsNotListed() throws {
        let (project, secret) = try layout()
        let outside = (secret as NSString).deletingLastPathComponent
        try "select 1;\n".write(toFile: outside + "/20240105000000_hidden.sql", atomically: true, encoding: .utf8)
        let migrations = project + "/supabase/migrations"
        TreeRemoval.remove(migrations)
        try FileManager.default.createSymbolicLink(atPath: migrations, withDestinationPath: outside)
        let r = try check(project)
        assertRefused(r, "supabase/migrations: resolves outside")
        XCTAssertEqual(r.code, 2, r.output)
        for name in ["20240105000000_hidden.sql", "secret.sql"] { XCTAssertFalse(r.output.contains(name), r.output) }
        // A migrations folder linked to another folder of the project is listed and applied.
        try FileManager.default.removeItem(atPath: migrations)
        try FileManager.default.createDirectory(atPath: project + "/db", withIntermediateDirectories: true)
        try "create table public.u (x int);\nalter table public.u enable row level security;\n".write(
            toFile: project + "/db/20240101000000_u.sql", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: migrations, withDestinationPath: project + "/db")
        let ok = try check(project)
        XCTAssertEqual(ok.code, 0, ok.output)
    }

    /// An include outside is refused whether or not the file exists there (an existing file, a
    /// missing one, a project link to a missing one): the answer tells nothing of what exists
    /// outside. A missing include inside the project is still named missing.
    func testAnIncludeOutsideSaysNothingOfWhatExists() throws {
        let (project, secret) = try layout()
        let outside = (secret as NSString).deletingLastPathComponent
        try FileManager.default.createSymbolicLink(
            atPath: project + "/supabase/tests/gone.inc", withDestinationPath: outside + "/missing.sql")
        for (name, target) in [
            ("a", secret), ("b", outside + "/missing.sql"), ("c", project + "/supabase/tests/gone.inc"),
            ("d", outside + "/nowhere/../missing.sql"),
        ] {
            try "begin;\nselect plan(1);\n\\i \(target)\nselect ok(true);\nselect * from finish();\nrollback;\n".write(
                toFile: project + "/supabase/tests/\(name)_test.sql", atomically: true, encoding: .utf8)
        }
        try "begin;\nselect plan(1);\n\\ir absent.sql\nselect ok(true);\nselect * from finish();\nrollback;\n".write(
            toFile: project + "/supabase/tests/e_test.sql", atomically: true, encoding: .utf8)
        let r = try check(project)
        XCTAssertNotEqual(r.code, 0, r.output)
        for name in ["a", "b", "c", "d"] {
            XCTAssertTrue(r.output.contains("\(name)_test.sql:3:1: cannot include"), r.output)
        }
        let missing = r.output.split(separator: "\n").filter { $0.contains("no such file") }
        XCTAssertTrue(!missing.isEmpty && missing.allSatisfy { $0.contains("absent.sql") }, r.output)
        XCTAssertTrue(r.output.contains("cannot include supabase/tests/absent.sql: no such file"), r.output)
        XCTAssertFalse(r.output.contains("TOPSECRET"), r.output)
    }

    /// A report written through the project's own link to a folder outside is refused, and
    /// nothing is written there.
    func testAReportThroughAProjectLinkIsNotWritten() throws {
        let (project, secret) = try layout()
        let outside = (secret as NSString).deletingLastPathComponent
        try FileManager.default.createSymbolicLink(atPath: project + "/out", withDestinationPath: outside)
        let r = try CLI.run(
            ["check", "--allow-empty", "--json", "out/report.json"], environment: ["TMPDIR": project],
            directory: project)
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertTrue(r.output.contains("cannot write out/report.json"), r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside + "/report.json"))
    }

    /// A report path names where rlskit writes, not a folder the project may read: with a
    /// report already there (a second run), its folder did not become readable.
    func testAReportPathGivesNoFolderToRead() throws {
        let (project, secret) = try layout()
        let outside = (secret as NSString).deletingLastPathComponent
        try "{}".write(toFile: outside + "/report.json", atomically: true, encoding: .utf8)
        try "begin;\nselect plan(1);\n\\i \(secret)\nselect ok(true);\nselect * from finish();\nrollback;\n".write(
            toFile: project + "/supabase/tests/inc_test.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--allow-empty", "--json", outside + "/report.json"], environment: ["TMPDIR": project],
            directory: project)
        XCTAssertTrue(r.output.contains("outside the folders rlskit was given"), r.output)
        XCTAssertFalse(r.output.contains("TOPSECRET"), r.output)
        XCTAssertNotEqual(r.code, 0, r.output)
        // The report itself is still written there.
        XCTAssertNotEqual(try String(contentsOfFile: outside + "/report.json", encoding: .utf8), "{}")
    }

    /// A link inside the project to another file inside it is fine.
    func testALinkWithinTheProjectIsRead() throws {
        let (project, _) = try layout()
        try "create table public.u (x int);\nalter table public.u enable row level security;\n".write(
            toFile: project + "/shared.sql", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: project + "/supabase/migrations/20240102000000_u.sql", withDestinationPath: project + "/shared.sql")
        let r = try check(project)
        XCTAssertEqual(r.code, 0, r.output)
    }
}
