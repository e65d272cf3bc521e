import Foundation
import TestSupport
import XCTest

/// The APIs' login roles on the throwaway server (issue 27): PostgREST's requests have
/// `session_user` authenticator, the Storage API's supabase_storage_admin, so functions that tell
/// API calls from direct connections by `session_user` give the platform's verdicts; postgres
/// cannot switch to the services' roles, as there.
final class APILoginCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func check(migrations: String, tests: [String: String]) throws -> CLI.Outcome {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for sub in ["m", "t"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try migrations.write(toFile: dir + "/m/0001_schema.sql", atomically: true, encoding: .utf8)
        for (n, t) in tests { try t.write(toFile: dir + "/t/" + n, atomically: true, encoding: .utf8) }
        return try CLI.run(
            ["check", "--dir", dir + "/m", "--tests", dir + "/t", "--allow-untested"], environment: ["TMPDIR": dir],
            directory: dir)
    }

    func assertPassed(_ r: CLI.Outcome, _ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotNil(
            r.stdout.range(of: "✓ test +\(count) passed, 0 failed", options: .regularExpression), r.output, file: file,
            line: line)
    }

    /// supabase-custom-claims' test, as its copies have it: a direct connection is an admin.
    static let claimsAdmin = """
        create function public.is_claims_admin() returns boolean language plpgsql stable as $$
        begin
          if session_user = 'authenticator' then
            if extract(epoch from now()) > coalesce((current_setting('request.jwt.claims', true)::jsonb ->> 'exp')::numeric, 0) then
              return false;
            end if;
            return coalesce((current_setting('request.jwt.claims', true)::jsonb -> 'app_metadata' ->> 'claims_admin')::boolean, false);
          else
            return true;
          end if;
        end
        $$;
        create function public.who() returns text language sql stable as $$ select session_user || '/' || current_user $$;
        grant execute on function public.who() to anon, authenticated;

        """

    /// Variant 1: the claims test in a SELECT policy. Users without the claim see nothing (on a
    /// postgres session they saw the row: a false pass of "only claims admins read"); a user
    /// holding the claim, and service_role, still read it.
    func testClaimsAdminPolicyGivesThePlatformsVerdict() throws {
        let r = try check(
            migrations: Self.claimsAdmin + """
                create table public.secrets (id int primary key, body text);
                alter table public.secrets enable row level security;
                grant select on public.secrets to anon, authenticated, service_role;
                create policy "claims admins read" on public.secrets for select using (public.is_claims_admin());
                insert into public.secrets values (1, 'the plan');
                """,
            tests: [
                "claims.scenario": """
                scenario only claims admins read the secrets
                  user alice
                  user carol claims {"app_metadata": {"claims_admin": true}}
                  as alice: select public.who()
                    expect value authenticator/authenticated
                  as anon: select public.who()
                    expect value authenticator/anon
                  as alice: select count(*) from public.secrets
                    expect value 0
                  as anon: select count(*) from public.secrets
                    expect value 0
                  as carol: select count(*) from public.secrets
                    expect value 1
                  as service_role: select count(*) from public.secrets
                    expect value 1

                """
            ])
        assertPassed(r, 6)
    }

    /// Variant 2: `session_user` in the policy itself. "API callers see their own rows, direct
    /// connections everything": a user sees exactly their row (a postgres session saw all: a
    /// false leak the other way round), and a policy that requires the API login lets them in.
    func testSessionUserInAPolicyGivesThePlatformsVerdict() throws {
        let r = try check(
            migrations: """
                create table public.notes (id int primary key, owner uuid default auth.uid(), body text);
                alter table public.notes enable row level security;
                grant select, insert on public.notes to authenticated;
                create policy "direct or own" on public.notes for select
                  using (session_user <> 'authenticator' or owner = (select auth.uid()));
                create policy "insert through the API only" on public.notes for insert to authenticated
                  with check (session_user = 'authenticator' and owner = (select auth.uid()));
                insert into public.notes (id, owner, body) values (1, gen_random_uuid(), 'someone else''s');
                """,
            tests: [
                "notes.scenario": """
                scenario users see their own notes only
                  user alice
                  as alice: insert into public.notes (id, body) values (2, 'mine')
                    expect 1 rows affected
                  as alice: select count(*) from public.notes
                    expect value 1
                  as admin: select count(*) from public.notes
                    expect value 2

                """
            ])
        assertPassed(r, 3)
    }

    /// Variant 3: guards comparing the current role with the login role. A SECURITY DEFINER
    /// function "for the backend only" (`session_user <> current_user` means a role switch) is
    /// refused through the API (on a postgres session its owner and the login were the same: a
    /// false pass); a trigger letting only direct connections or service_role change a column
    /// refuses a user and lets service_role through; a guard on current_user alone is unaffected.
    func testCurrentUserAgainstSessionUserGuardGivesThePlatformsVerdict() throws {
        let r = try check(
            migrations: """
                create table public.profiles (id int primary key, plan text not null default 'free', bio text);
                alter table public.profiles enable row level security;
                grant select, update on public.profiles to authenticated, service_role;
                create policy "anyone signed in" on public.profiles for all to authenticated using (true) with check (true);
                insert into public.profiles (id) values (1);
                create function public.guard_plan() returns trigger language plpgsql as $$
                begin
                  if new.plan is distinct from old.plan and session_user::text <> current_user::text
                     and current_setting('role') <> 'service_role' then
                    raise exception 'plan is changed by billing only' using errcode = '42501';
                  end if;
                  return new;
                end
                $$;
                create trigger guard_plan before update on public.profiles for each row execute function public.guard_plan();
                create function public.guard_bio() returns trigger language plpgsql as $$
                begin
                  if new.bio is distinct from old.bio and current_user::text = 'anon' then
                    raise exception 'anon edits nothing' using errcode = '42501';
                  end if;
                  return new;
                end
                $$;
                create trigger guard_bio before update on public.profiles for each row execute function public.guard_bio();
                create function public.upgrade(p int) returns text language plpgsql security definer set search_path = '' as $$
                begin
                  if session_user::text <> current_user::text then
                    raise exception 'upgrade is for the backend only' using errcode = '42501';
                  end if;
                  update public.profiles set plan = 'pro' where id = p;
                  return 'pro';
                end
                $$;
                grant execute on function public.upgrade(int) to authenticated;
                """,
            tests: [
                "plan.scenario": """
                scenario only billing changes the plan
                  user alice
                  as alice: update public.profiles set plan = 'pro' where id = 1
                    expect sqlstate 42501
                  as service_role: update public.profiles set plan = 'pro' where id = 1
                    expect 1 rows affected
                  as alice: update public.profiles set bio = 'hi' where id = 1
                    expect 1 rows affected
                  as alice: select public.upgrade(1)
                    expect sqlstate 42501

                """
            ])
        assertPassed(r, 4)
        // The proof calls it as the API would, and the platform's answer is a refusal.
        XCTAssertTrue(r.output.contains("not proven: anon's call raised: upgrade is for the backend only"), r.output)
    }

    /// A project function cannot switch to the roles the harness seeds and signs up as, from an
    /// API login (authenticator is a member of neither); to the API roles it may, as there.
    func testProjectFunctionsCannotUseTheHarnessSwitches() throws {
        let r = try check(
            migrations: Self.claimsAdmin + """
                create function public.become(r text) returns text language plpgsql as $$
                begin
                  perform set_config('role', r, true);
                  return current_user::text;
                end
                $$;
                grant execute on function public.become(text) to anon, authenticated;
                """,
            tests: [
                "become.scenario": """
                scenario switching roles from inside a request
                  user alice
                  as alice: select public.become('postgres')
                    expect sqlstate 42501
                  as alice: select public.become('supabase_auth_admin')
                    expect sqlstate 42501
                  as alice: select public.become('supabase_admin')
                    expect sqlstate 42501
                  as alice: select public.become('anon')
                    expect value anon

                """
            ])
        assertPassed(r, 4)
    }

    /// Bucket checks log in as the Storage API does: a policy that requires its login passes for
    /// the owner's folder (on a postgres or authenticator session every check of it failed).
    func testBucketChecksLogInAsTheStorageAPI() throws {
        let only =
            "bucket_id = 'docs' and public.via_storage_api() and (storage.foldername(name))[1] = (select auth.uid())::text"
        let r = try check(
            migrations: """
                insert into storage.buckets (id, name, public) values ('docs', 'docs', false);
                create function public.via_storage_api() returns boolean language sql stable as $$
                  select session_user::text = 'supabase_storage_admin'
                $$;
                grant execute on function public.via_storage_api() to anon, authenticated;
                create policy docs_read on storage.objects for select to authenticated using (\(only));
                create policy docs_insert on storage.objects for insert to authenticated with check (\(only));
                create policy docs_update on storage.objects for update to authenticated using (\(only)) with check (\(only));
                create policy docs_delete on storage.objects for delete to authenticated using (\(only));
                """,
            tests: ["docs.rls": "bucket docs\n  read owner\n  write own-folder\n"])
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains(" 0 failed"), r.output)
    }

    /// As on the newest platform, postgres is a member of none of the services' roles: pgTAP
    /// files (which run as postgres, as `supabase test db` does) cannot switch to them; to the
    /// API roles they can.
    func testPostgresCannotSetRoleToTheServicesRoles() throws {
        let r = try check(
            migrations: "create table public.t (id int primary key);\n",
            tests: [
                "roles_test.sql": """
                begin;
                select plan(6);
                select is(session_user::text, 'postgres', 'pgTAP files log in as postgres');
                select throws_ok('set role supabase_auth_admin', '42501', null, 'not to GoTrue''s role');
                select throws_ok('set role supabase_storage_admin', '42501', null, 'not to the Storage API''s role');
                select throws_ok('set role supabase_realtime_admin', '42501', null, 'not to Realtime''s role');
                select throws_ok('set role authenticator', '42501', null, 'not to the API login role');
                select lives_ok('set role service_role', 'to the API roles');
                select * from finish();
                rollback;

                """
            ])
        assertPassed(r, 6)
    }
}
