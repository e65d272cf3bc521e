import Foundation
import TestSupport
import XCTest

/// Where the stand-in once differed from the platform (issue 27): who the platform's functions
/// run as, the services' search paths, and what postgres owns.
final class PlatformFidelityCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
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

    func check(_ dir: String) throws -> CLI.Outcome {
        try CLI.run(
            ["check", "--dir", dir + "/m", "--tests", dir + "/t", "--allow-untested"], environment: ["TMPDIR": dir],
            directory: dir)
    }

    func apply(_ dir: String) throws -> CLI.Outcome {
        try CLI.run(["apply", "--dir", dir + "/m"], environment: ["TMPDIR": dir], directory: dir)
    }

    func assertPassed(_ r: CLI.Outcome, _ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotNil(
            r.stdout.range(of: "✓ test +\(count) passed, 0 failed", options: .regularExpression), r.output, file: file,
            line: line)
    }

    // MARK: - 1. SECURITY DEFINER / INVOKER as on the platform

    static let topicPolicy = """
        create policy "send to allowed only" on realtime.messages for insert to authenticated
          with check (realtime.topic() = 'allowed');
        create policy "read allowed" on realtime.messages for select to authenticated
          using (realtime.topic() = 'allowed');

        """

    /// realtime.send inserts as the caller, under realtime.messages' policies: a topic they refuse
    /// gets no message (Realtime warns, it does not raise); broadcast_changes goes through send.
    func testRealtimeSendAndBroadcastChangesRunAsTheCaller() throws {
        let dir = try project(
            migrations: [
                "0001_realtime.sql": Self.topicPolicy + """
                    create table public.notes (id int primary key, body text);
                    grant insert on public.notes to authenticated;
                    create function public.notes_broadcast() returns trigger language plpgsql as $$
                    begin
                      perform realtime.broadcast_changes('room:' || new.id, tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
                      return new;
                    end
                    $$;
                    create trigger notes_broadcast after insert on public.notes
                      for each row execute function public.notes_broadcast();

                    """
            ],
            tests: [
                "realtime_test.sql": """
                begin;
                select plan(5);
                set local role authenticated;
                select set_config('request.jwt.claims', '{"sub":"11111111-1111-4111-8111-111111111111","role":"authenticated"}', true);
                select realtime.send('{"a":1}'::jsonb, 'e', 'elsewhere', true);
                select realtime.send('{"a":2}'::jsonb, 'e', 'allowed', true);
                insert into public.notes values (1, 'x');
                reset role;
                select is((select count(*)::int from realtime.messages where topic = 'elsewhere'), 0,
                          'a topic the policies refuse gets no message');
                select is((select count(*)::int from realtime.messages where topic = 'allowed'), 1,
                          'an allowed topic gets one');
                select is((select count(*)::int from realtime.messages where topic = 'room:1'), 0,
                          'broadcast_changes sends as the caller too');
                select is((select payload ? 'id' from realtime.messages where topic = 'allowed'), true,
                          'the payload carries the message id');
                select is(
                  (select array_agg(p.proname::text order by p.proname) from pg_proc p
                    where p.prosecdef and p.pronamespace in ('auth'::regnamespace, 'storage'::regnamespace,
                                                             'realtime'::regnamespace)),
                  null, 'no function of auth, storage or realtime is SECURITY DEFINER');
                select * from finish();
                rollback;

                """
            ])
        let r = try check(dir)
        assertPassed(r, 5)
    }

    /// What the platform makes SECURITY DEFINER stays so, with its search_path: vault's functions.
    func testVaultFunctionsAreDefinersAndServiceRoleMayUseThem() throws {
        let dir = try project(
            migrations: ["0001_notes.sql": "create table public.notes (id int primary key);\n"],
            tests: [
                "vault_test.sql": """
                begin;
                select plan(5);
                select is((select prosecdef and array_to_string(proconfig, ',') = 'search_path=""' from pg_proc
                            where oid = 'vault.create_secret(text, text, text, uuid)'::regprocedure), true,
                          'create_secret is a definer with an empty search_path');
                set local role service_role;
                select isnt(vault.create_secret('s3cret', 'k'), null, 'service_role creates a secret');
                select is((select decrypted_secret from vault.decrypted_secrets where name = 'k'), 's3cret',
                          'service_role reads it');
                select lives_ok($$ select vault.update_secret((select id from vault.secrets where name = 'k'), 'new') $$,
                                'service_role updates it');
                select lives_ok($$ delete from vault.secrets where name = 'k' $$, 'service_role deletes it');
                reset role;
                select * from finish();
                rollback;

                """
            ])
        let r = try check(dir)
        assertPassed(r, 5)
    }

    // MARK: - 2. The services' search paths

    static func signUpTrigger(_ body: String, options: String = "") -> String {
        """
        create table public.profiles (id uuid primary key references auth.users (id) on delete cascade, email text);
        alter table public.profiles enable row level security;
        create function public.handle_new_user() returns trigger language plpgsql security definer \(options)
        as $$
        begin
          \(body)
          return new;
        end
        $$;
        create trigger on_auth_user_created after insert on auth.users
          for each row execute function public.handle_new_user();

        """
    }

    static let signUpScenario = """
        scenario sign-up makes the profile
          user alice
          as admin: select count(*) from public.profiles where id = '{alice}'
            expect value 1

        """

    /// GoTrue inserts as supabase_auth_admin with search_path `auth`: a definer trigger that names
    /// `profiles` unqualified fails there, and here with the platform's symptom.
    func testUnqualifiedSignUpTriggerFailsAsOnThePlatform() throws {
        let dir = try project(
            migrations: [
                "0001_profiles.sql": Self.signUpTrigger("insert into profiles (id, email) values (new.id, new.email);")
            ],
            tests: ["signup.scenario": Self.signUpScenario])
        let r = try check(dir)
        XCTAssertNotEqual(r.code, 0, r.output)
        XCTAssertTrue(r.output.contains("public.handle_new_user()"), r.output)
        XCTAssertTrue(r.output.contains("relation \"profiles\" does not exist"), r.output)
        XCTAssertTrue(r.output.contains("Database error saving new user"), r.output)
        XCTAssertTrue(r.output.contains("search_path auth"), r.output)
    }

    /// The same trigger with its own search_path, or with qualified names, signs users up.
    func testSignUpTriggerWithSearchPathOrQualifiedNamesPasses() throws {
        let variants = [
            Self.signUpTrigger(
                "insert into profiles (id, email) values (new.id, new.email);", options: "set search_path = public"),
            Self.signUpTrigger(
                "insert into public.profiles (id, email) values (new.id, new.email);", options: "set search_path = ''"),
            Self.signUpTrigger("insert into public.profiles (id, email) values (new.id, new.email);"),
        ]
        for migration in variants {
            let dir = try project(
                migrations: ["0001_profiles.sql": migration], tests: ["signup.scenario": Self.signUpScenario])
            let r = try check(dir)
            assertPassed(r, 1)
        }
    }

    /// The platform's role settings: each service logs in with its own schema as search_path.
    func testServicesRolesHaveThePlatformsSearchPaths() throws {
        let dir = try project(
            migrations: ["0001_notes.sql": "create table public.notes (id int primary key);\n"],
            tests: [
                "roles_test.sql": """
                begin;
                select plan(2);
                select is((select setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
                            where r.rolname = 'supabase_auth_admin' and s.setdatabase = 0), '{search_path=auth}',
                          'supabase_auth_admin logs in with search_path auth');
                select is((select setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
                            where r.rolname = 'supabase_storage_admin' and s.setdatabase = 0), '{search_path=storage}',
                          'supabase_storage_admin logs in with search_path storage');
                select * from finish();
                rollback;

                """
            ])
        assertPassed(try check(dir), 2)
    }

    // MARK: - 3. Who owns what

    /// postgres is a member of none of the services' roles and owns nothing in their schemas.
    func testPostgresOwnsNothingInTheServicesSchemas() throws {
        let dir = try project(
            migrations: [
                "0001_allowed.sql": """
                create policy "own files" on storage.objects for select to authenticated
                  using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
                alter policy "own files" on storage.objects using (bucket_id = 'docs');
                drop policy "own files" on storage.objects;
                create policy "read buckets" on storage.buckets for select to authenticated using (true);
                create policy "room" on realtime.messages for select to authenticated using (realtime.topic() = 'x');
                create function public.touch() returns trigger language plpgsql as $$ begin return new; end $$;
                create trigger touch before update on storage.objects for each row execute function public.touch();
                drop trigger touch on storage.objects;
                create trigger on_user after insert on auth.users for each row execute function public.touch();
                drop trigger if exists on_user on auth.users;
                grant select on auth.users to anon;

                """
            ],
            tests: [
                "owners_test.sql": """
                begin;
                select plan(6);
                select is(has_table_privilege('anon', 'auth.users', 'select'), false,
                          'grant on auth.users by postgres grants nothing');
                select is(pg_has_role('postgres', 'supabase_storage_admin', 'usage'), false, 'no storage admin rights');
                select is(pg_has_role('postgres', 'supabase_auth_admin', 'usage'), false, 'no auth admin rights');
                select is(pg_has_role('postgres', 'supabase_realtime_admin', 'member'), false, 'no realtime admin');
                select is((select nspowner::regrole::text from pg_namespace where nspname = 'auth'), 'supabase_admin',
                          'auth belongs to supabase_admin');
                select is((select nspowner::regrole::text from pg_namespace where nspname = 'storage'), 'supabase_admin',
                          'storage belongs to supabase_admin');
                select * from finish();
                rollback;

                """
            ])
        assertPassed(try check(dir), 6)

        let refused = [
            ("alter table storage.objects disable row level security;", "must be owner of table objects"),
            ("alter table storage.buckets add column note text;", "must be owner of table buckets"),
            (
                "create or replace function storage.foldername(name text) returns text[] language sql as $$ select '{}'::text[] $$;",
                // CREATE on the schema is checked first, as there: postgres has none since April 2025.
                "permission denied for schema storage"
            ),
            ("create table storage.mine (id int);", "permission denied for schema storage"),
            ("alter table realtime.messages disable row level security;", "must be owner of table messages"),
            // postgres is no member of the Storage API's role, as on the newest platform.
            (
                "set role supabase_storage_admin;\nalter table storage.objects disable row level security;",
                "permission denied to set role \"supabase_storage_admin\""
            ),
        ]
        for (k, (sql, message)) in refused.enumerated() {
            let file = dir + "/m/000\(2 + k)_refused.sql"
            try (sql + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let f = try apply(dir)
            XCTAssertEqual(f.code, 3, sql + "\n" + f.output)
            XCTAssertTrue(f.stderr.contains(message), sql + "\n" + f.stderr)
            XCTAssertTrue(f.stderr.contains("would fail there too"), f.stderr)
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
