import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Rows with a group and an author: members write in their own name only (`owner and members`).
final class AuthorInGroupTests: XCTestCase {
    static let schema =
        TeamFixture.schema + """

            create table public.posts (
              id bigint generated always as identity primary key,
              team_id uuid not null references public.teams (id) on delete cascade,
              author_id uuid not null default auth.uid() references auth.users (id),
              body text not null
            );
            alter table public.posts enable row level security;
            grant select, insert, update, delete on public.posts to authenticated;
            grant all on public.posts to service_role;
            grant usage on all sequences in schema public to authenticated, service_role;
            create policy p_read on public.posts for select to authenticated using (public.is_member(team_id));
            create policy p_add on public.posts for insert to authenticated
              with check (public.is_member(team_id) and author_id = (select auth.uid()));
            create policy p_edit on public.posts for update to authenticated
              using (author_id = (select auth.uid()) and public.is_member(team_id))
              with check (author_id = (select auth.uid()) and public.is_member(team_id));
            create policy p_drop on public.posts for delete to authenticated
              using (author_id = (select auth.uid()) or public.has_role(team_id, 'owner'));
            """

    static let access =
        TeamFixture.access + """

            table public.posts
              group team_id
              owner author_id
              read members
              insert owner and members
              update owner and members
              delete owner or members with role owner
            """

    func testMembersWriteOnlyInTheirOwnName() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.posts: G1 member inserts a row into G1 owned by G1 owner",
                "public.posts: G2 owner moves G2's row into G1",
            ],
            bugs: [
                .init(
                    what: "a post may name any author",
                    sql:
                        "drop policy p_add on public.posts; create policy p_add on public.posts for insert to authenticated with check (public.is_member(team_id));",
                    fails: ["public.posts: G1 member inserts a row into G1 owned by G1 owner"]),
                .init(
                    what: "an author edits without being a member",
                    sql:
                        "drop policy p_read on public.posts; create policy p_read on public.posts for select to authenticated using (public.is_member(team_id) or author_id = (select auth.uid()));"
                        + "drop policy p_edit on public.posts; create policy p_edit on public.posts for update to authenticated using (author_id = (select auth.uid())) with check (author_id = (select auth.uid()));",
                    fails: ["public.posts: G2 owner moves G2's row into G1"]),
            ])
    }
}
