import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// A role given by a row in a role table (user_roles), as many apps grant admins.
final class RoleTableTests: XCTestCase {
    static let schema = """
        create table public.user_roles (user_id uuid primary key references auth.users (id), role text not null);
        create function public.is_admin() returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.user_roles where user_id = (select auth.uid()) and role = 'admin') $$;
        create table public.posts (
          id bigint generated always as identity primary key,
          author_id uuid not null default auth.uid() references auth.users (id),
          body text not null
        );
        alter table public.user_roles enable row level security;
        alter table public.posts enable row level security;
        grant select, insert, update, delete on public.posts, public.user_roles to authenticated;
        grant all on public.posts, public.user_roles to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        create policy own_role on public.user_roles for select to authenticated using (user_id = (select auth.uid()));
        create policy read on public.posts for select to authenticated using (true);
        create policy write on public.posts for insert to authenticated with check (author_id = (select auth.uid()));
        create policy edit on public.posts for update to authenticated using (author_id = (select auth.uid()) or public.is_admin());
        create policy remove on public.posts for delete to authenticated using (author_id = (select auth.uid()) or public.is_admin());
        """

    static let access = """
        role admin
          row public.user_roles user_id, role = 'admin'

        table public.posts
          owner author_id
          read signed-in
          insert owner
          update owner or admin
          delete owner or admin

        table public.user_roles
          owner user_id
          read owner
          write nobody
        """

    func testTheRowHolderMayTheForgerMayNot() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: ["public.posts: admin deletes A's row", "public.posts: forged admin deletes A's row"],
            bugs: [
                .init(
                    what: "users may grant themselves the role",
                    sql:
                        "create policy self on public.user_roles for insert to authenticated with check (user_id = (select auth.uid()));",
                    fails: ["public.user_roles: A inserts own row"]),
                .init(
                    what: "the admin check reads user_metadata instead",
                    sql:
                        "create or replace function public.is_admin() returns boolean language sql stable as $$ select coalesce((select auth.jwt()) -> 'user_metadata' ->> 'role', '') = 'admin' $$;",
                    fails: ["public.posts: forged admin deletes A's row", "public.posts: admin deletes A's row"]),
            ])
    }

    func testRowMistakes() throws {
        for (text, wanted) in [
            ("role admin\n  row public.user_roles\n", "a.rls:2: write 'row schema.table user_column, column = value'"),
            ("role admin\n  row public.user_roles user_id, role 'admin'\n", "a.rls:2: write 'row schema.table"),
            (
                "role admin\n  claim app_metadata.role = admin\n  row public.r user_id\n",
                "a.rls:3: role admin is already given by a claim"
            ),
            (
                "role admin\n  row public.r user_id, role = 'a\n",
                "a.rls:2: role admin: the value of role has an unterminated"
            ),
        ] {
            XCTAssertThrowsError(try AccessFile.parse(text + "table t\n  read anyone\n  write nobody\n", path: "a.rls"))
            {
                XCTAssertTrue("\($0)".hasPrefix(wanted), "\($0)")
            }
        }
    }
}
