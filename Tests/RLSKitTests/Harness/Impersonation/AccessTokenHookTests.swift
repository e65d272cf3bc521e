import Foundation
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// A custom access-token hook stands between sign-in and every claim a policy reads: the
/// checks run with what it returns, after sign-up and seeding, as GoTrue would call it.
final class AccessTokenHookTests: XCTestCase {
    static let schema = """
        create table public.staff (user_id uuid primary key references auth.users (id), job text not null);
        create table public.posts (
          id bigint generated always as identity primary key,
          author_id uuid not null default auth.uid() references auth.users (id),
          body text not null
        );
        alter table public.staff enable row level security;
        alter table public.posts enable row level security;
        grant usage on schema public to supabase_auth_admin;
        grant select on public.staff, public.posts to supabase_auth_admin;
        grant select on public.posts to anon;
        grant select, insert, update, delete on public.posts to authenticated;
        grant all on public.posts, public.staff to service_role;
        create policy hook_reads_staff on public.staff for select to supabase_auth_admin using (true);
        create policy hook_reads_posts on public.posts for select to supabase_auth_admin using (true);
        create policy read on public.posts for select to anon, authenticated using (true);
        create policy write on public.posts for insert to authenticated with check (author_id = (select auth.uid()));
        -- Editing needs a post the hook counted: only a hook that sees the seeded rows lets A edit.
        create policy edit on public.posts for update to authenticated
          using (author_id = (select auth.uid()) and ((select auth.jwt()) ->> 'posts')::int > 0);
        create policy remove on public.posts for delete to authenticated
          using (author_id = (select auth.uid()) or ((select auth.jwt()) ->> 'job') = 'moderator');
        create function public.token_hook(event jsonb) returns jsonb language plpgsql stable as $$
        declare
          claims jsonb := event -> 'claims';
          uid uuid := (event ->> 'user_id')::uuid;
        begin
          claims := jsonb_set(claims, '{job}', coalesce(to_jsonb((select job from public.staff where user_id = uid)), 'null'));
          claims := jsonb_set(claims, '{posts}', to_jsonb((select count(*) from public.posts where author_id = uid)));
          return jsonb_build_object('claims', claims);
        end $$;
        revoke execute on function public.token_hook(jsonb) from public, anon, authenticated;
        grant execute on function public.token_hook(jsonb) to supabase_auth_admin;
        """

    static let access = """
        role moderator
          claim job = moderator

        table public.posts
          owner author_id
          read anyone
          insert owner
          update owner
          delete owner or moderator
        """

    static var hooked: HarnessOptions {
        var o = HarnessOptions()
        o.accessTokenHook = AccessTokenHook(schema: "public", function: "token_hook", source: "config.toml:3")
        return o
    }

    func testACorrectHookPassesAndOneCopyingUserMetadataLeaks() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.posts: A updates own row", "public.posts: moderator deletes A's row",
                "public.posts: forged moderator deletes A's row", "public.posts: M deletes B's row",
            ],
            bugs: [
                .init(
                    what: "the hook copies user_metadata into the top-level claim",
                    sql: """
                        create or replace function public.token_hook(event jsonb) returns jsonb language plpgsql stable as $$
                        declare claims jsonb := event -> 'claims';
                        begin
                          claims := jsonb_set(claims, '{job}', coalesce(claims -> 'user_metadata' -> 'job', 'null'));
                          claims := jsonb_set(claims, '{posts}', to_jsonb((select count(*) from public.posts where author_id = (event ->> 'user_id')::uuid)));
                          return jsonb_build_object('claims', claims);
                        end $$;
                        """,
                    fails: ["public.posts: forged moderator deletes A's row", "public.posts: M deletes B's row"])
            ], options: Self.hooked)
    }

    func testWithoutTheHookTheClaimItAddsIsMissing() throws {
        let report = try IntentFixture.run(Self.schema, access: Self.access)
        let failed = Set(report.outcomes.filter(\.isFailure).map(\.name))
        XCTAssertTrue(failed.contains("A updates own row"), "\(failed)")
    }

    /// Scenario users get the hook's claims too; claims the scenario gives are kept over them.
    func testScenarioUsersGoThroughTheHook() throws {
        let db = try StandIn.makeDatabase(prefix: "hookscenario")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema)
        let text = """
            scenario the hook counts posts and the scenario's claims stay
              user alice
              user bob {} claims {"job": "editor"}
              as alice: select (auth.jwt() ->> 'posts') || '/' || coalesce(auth.jwt() ->> 'job', 'none')
                expect values 0/none
              as bob: select auth.jwt() ->> 'job'
                expect values editor
            """
        var input = HarnessInput()
        input.scenarios = [("hook.scenario", try ScenarioFile.parse(text, path: "hook.scenario"))]
        let report = try Harness.run(input, options: Self.hooked, on: db.connectionString)
        XCTAssertTrue(report.passed, report.outcomes.compactMap(\.message).joined(separator: "\n"))
        XCTAssertEqual(report.outcomes.count, 2)
        let plain = try Harness.run(input, options: HarnessOptions(), on: db.connectionString)
        XCTAssertFalse(plain.passed, "without the hook there is no 'posts' claim")
    }

    func testAFailingHookIsOneLineNamingTheFunction() throws {
        let raising = """
            create or replace function public.token_hook(event jsonb) returns jsonb language plpgsql as $$
            begin raise exception 'staff table is gone'; end $$;
            """
        let report = try IntentFixture.run(Self.schema + raising, access: Self.access, options: Self.hooked)
        let errors = report.outcomes.filter { $0.status == .error }
        XCTAssertEqual(errors.map(\.name), ["custom access-token hook"])
        let message = errors.first?.message ?? ""
        XCTAssertTrue(message.contains("public.token_hook (set in config.toml:3)"), message)
        XCTAssertTrue(message.contains("staff table is gone"), message)
        XCTAssertFalse(message.contains("\n"), message)
        // Nothing ran, so the coverage lists no actor as checked.
        XCTAssertTrue(
            report.notes.contains {
                $0.hasPrefix("  public.posts") && $0.hasSuffix("nothing checked: custom access-token hook failed")
            },
            report.notes.joined(separator: "\n"))
        XCTAssertFalse(report.notes.contains { $0.contains("select: A") }, report.notes.joined(separator: "\n"))

        let noClaims = """
            create or replace function public.token_hook(event jsonb) returns jsonb language sql as $$
            select jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'banned')) $$;
            """
        let refused = try IntentFixture.run(Self.schema + noClaims, access: Self.access, options: Self.hooked)
        let line = refused.outcomes.first { $0.status == .error }?.message ?? ""
        XCTAssertTrue(line.contains("returned an error for user A: banned"), line)
    }

    func testAMissingHookStopsBeforeAnyCheck() throws {
        var o = Self.hooked
        o.accessTokenHook?.function = "no_such_hook"
        XCTAssertThrowsError(try IntentFixture.run(Self.schema, access: Self.access, options: o)) { e in
            XCTAssertTrue("\(e)".contains("public.no_such_hook(jsonb) does not exist"), "\(e)")
        }
    }

    /// Without a hook, claims outside user_metadata cannot be forged: M is not run, and says so.
    func testNoForgedUserWhereNothingAUserWritesIsRead() throws {
        let report = try IntentFixture.run(RoleMatrixTests.schema, access: RoleMatrixTests.access)
        XCTAssertTrue(report.passed)
        let m = report.outcomes.filter { $0.name == "M (forged user_metadata)" }
        XCTAssertEqual(m.map(\.status), [.skipped])
        XCTAssertTrue(
            m.first?.message?.hasPrefix("not run: the policies read JWT claims but not user_metadata") == true)
        XCTAssertFalse(report.outcomes.contains { $0.actor?.hasPrefix("M ") == true || $0.actor == "M" })
    }

    func testTheHookIsTakenFromConfigToml() throws {
        let config = try SupabaseConfig.parse(
            "[auth.hook.custom_access_token]\nenabled = true\nuri = \"pg-functions://postgres/app/token_hook\"\n",
            path: "supabase/config.toml")
        XCTAssertEqual(
            config.accessTokenHook,
            AccessTokenHook(schema: "app", function: "token_hook", source: "supabase/config.toml:3"))
        let http = try SupabaseConfig.parse(
            "[auth.hook.custom_access_token]\nenabled = true\nuri = \"https://example.test/hook\"\n", path: "c.toml")
        XCTAssertNil(http.accessTokenHook)
        XCTAssertNil(AccessTokenHook(name: "nodot", source: "x"))
    }
}
