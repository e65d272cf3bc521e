import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Claims kept in raw_app_meta_data by triggers and functions reach the test users' tokens
/// (rebuilt from auth.users after seeding, as GoTrue does at the next refresh); `claim` takes
/// nested paths and JSON values.
final class ClaimRefreshTests: XCTestCase {
    static let posts = """
        create table public.posts (
          id bigint generated always as identity primary key,
          author_id uuid not null references auth.users (id),
          body text not null
        );
        alter table public.posts enable row level security;
        grant select, insert, update, delete on public.posts to authenticated;
        grant all on public.posts to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        create policy read on public.posts for select to authenticated using (true);
        create policy add on public.posts for insert to authenticated with check (author_id = (select auth.uid()));
        create policy edit on public.posts for update to authenticated using (author_id = (select auth.uid()));
        """

    static let postsAccess = """
        table public.posts
          owner author_id
          read signed-in
          insert owner
          update owner
          delete owner or admin
        """

    /// A role table whose trigger copies the role into app_metadata; the policy reads the claim.
    static let roleTrigger =
        posts + """

            create table public.user_roles (user_id uuid primary key references auth.users (id), role text not null);
            alter table public.user_roles enable row level security;
            grant all on public.user_roles to service_role;
            create function public.copy_role() returns trigger language plpgsql security definer set search_path = '' as $$
            begin
              update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}') || jsonb_build_object('role', new.role)
               where id = new.user_id;
              return new;
            end $$;
            create trigger copy_role after insert on public.user_roles for each row execute function public.copy_role();
            create policy remove on public.posts for delete to authenticated
              using (author_id = (select auth.uid()) or (select auth.jwt()) -> 'app_metadata' ->> 'role' = 'admin');
            """

    func testRoleCopiedByATriggerReachesTheToken() throws {
        let access = "role admin\n  row public.user_roles user_id, role = 'admin'\n\n" + Self.postsAccess
        try IntentFixture.assertCatches(
            schema: Self.roleTrigger, access: access,
            present: ["public.posts: admin deletes A's row", "public.posts: forged admin deletes A's row"],
            bugs: [
                .init(
                    what: "the policy reads the role from user_metadata",
                    sql:
                        "drop policy remove on public.posts; create policy remove on public.posts for delete to authenticated using (author_id = (select auth.uid()) or (select auth.jwt()) -> 'user_metadata' ->> 'role' = 'admin');",
                    fails: ["public.posts: admin deletes A's row", "public.posts: forged admin deletes A's row"]),
                .init(
                    what: "the trigger copies nothing",
                    sql:
                        "create or replace function public.copy_role() returns trigger language plpgsql as $$ begin return new; end $$;",
                    fails: ["public.posts: admin deletes A's row"]),
            ])
    }

    /// supabase-custom-claims' shape: set_claim(uid, claim, jsonb), called for each row of a
    /// staff table; the claim is an array the policy tests with `?`.
    static let setClaim =
        posts + """

            create table public.staff (user_id uuid primary key references auth.users (id), title text not null);
            alter table public.staff enable row level security;
            grant all on public.staff to service_role;
            create function public.set_claim(uid uuid, claim text, value jsonb) returns text language sql security definer
              set search_path = '' as $$
              update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}') || jsonb_build_object(claim, value)
               where id = uid returning 'OK' $$;
            create function public.staff_claim() returns trigger language plpgsql security definer set search_path = '' as $$
            begin perform public.set_claim(new.user_id, 'roles', '["admin", "staff"]'); return new; end $$;
            revoke execute on function public.set_claim(uuid, text, jsonb) from public, anon, authenticated;
            create trigger staff_claim after insert on public.staff for each row execute function public.staff_claim();
            create policy remove on public.posts for delete to authenticated
              using (author_id = (select auth.uid()) or coalesce((select auth.jwt()) -> 'app_metadata' -> 'roles' ? 'admin', false));
            """

    func testClaimSetThroughAFunctionReachesTheToken() throws {
        let access = "role admin\n  row public.staff user_id, title = 'editor'\n\n" + Self.postsAccess
        try IntentFixture.assertCatches(
            schema: Self.setClaim, access: access,
            present: ["public.posts: admin deletes A's row"],
            bugs: [
                .init(
                    what: "every signed-in user counts as admin",
                    sql:
                        "drop policy remove on public.posts; create policy remove on public.posts for delete to authenticated using (true);",
                    fails: ["public.posts: A deletes B's row", "public.posts: forged admin deletes A's row"])
            ])
    }

    /// `claim` with a nested path and a JSON value: the holder carries it, the forger writes it in user_metadata.
    static let nested =
        posts + """

            create policy remove on public.posts for delete to authenticated
              using (author_id = (select auth.uid())
                     or coalesce((select auth.jwt()) -> 'app_metadata' -> 'access' -> 'roles' ? 'admin', false));
            """

    func testNestedJSONClaim() throws {
        let access = "role admin\n  claim app_metadata.access.roles = [\"admin\", \"billing\"]\n\n" + Self.postsAccess
        try IntentFixture.assertCatches(
            schema: Self.nested, access: access,
            present: ["public.posts: admin deletes A's row", "public.posts: forged admin deletes A's row"],
            bugs: [
                .init(
                    what: "the policy reads the roles from user_metadata",
                    sql:
                        "drop policy remove on public.posts; create policy remove on public.posts for delete to authenticated using (author_id = (select auth.uid()) or coalesce((select auth.jwt()) -> 'user_metadata' -> 'access' -> 'roles' ? 'admin', false));",
                    fails: ["public.posts: admin deletes A's row", "public.posts: forged admin deletes A's row"])
            ])
    }

    func testClaimValues() throws {
        func role(_ line: String) throws -> RoleIntent {
            try AccessFile.parse("role admin\n  \(line)\n" + Self.postsAccess, path: "a.rls").roles[0]
        }
        XCTAssertEqual(try role("claim app_metadata.org.role = owner").claimObject, #"{"org":{"role":"owner"}}"#)
        XCTAssertEqual(try role(#"claim app_metadata.roles = ["a", "b"]"#).claimObject, #"{"roles":["a","b"]}"#)
        XCTAssertEqual(try role("claim app_metadata.level = 3").claimObject, #"{"level":3}"#)
        XCTAssertEqual(try role("claim app_metadata.name = 'two words'").claimObject, #"{"name":"two words"}"#)
        XCTAssertTrue(try role("claim app_metadata.a.b = true").holder.appMetadata.contains("\"a\""))
        for (line, wanted) in [
            ("claim app_metadata.roles = [\"a\"", "a.rls:2: role admin: '[\"a\"' is not a JSON value"),
            ("claim app_metadata.x = two words", "is not a JSON value or one word"),
            ("claim user_metadata.role = admin", "is written by users themselves"),
        ] {
            XCTAssertThrowsError(try role(line)) { XCTAssertTrue("\($0)".contains(wanted), "\($0)") }
        }
    }
}
