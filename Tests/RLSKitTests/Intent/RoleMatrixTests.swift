import Foundation
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Roles given through claims users cannot write: the holder may, the forger (same value in
/// user_metadata) may not, and a policy that reads the wrong place is caught either way.
final class RoleMatrixTests: XCTestCase {
    static let schema = """
        create table public.posts (
          id bigint generated always as identity primary key,
          author_id uuid not null default auth.uid() references auth.users (id),
          body text not null
        );
        alter table public.posts enable row level security;
        grant select on public.posts to anon;
        grant select, insert, update, delete on public.posts to authenticated;
        grant all on public.posts to service_role;
        create policy read on public.posts for select to anon, authenticated using (true);
        create policy write on public.posts for insert to authenticated with check (author_id = (select auth.uid()));
        create policy edit on public.posts for update to authenticated
          using (author_id = (select auth.uid()) or ((select auth.jwt()) -> 'app_metadata' ->> 'role') = 'admin');
        create policy remove on public.posts for delete to authenticated
          using (author_id = (select auth.uid()) or ((select auth.jwt()) ->> 'user_role') = 'moderator');
        """

    static let access = """
        role admin
          claim app_metadata.role = admin
        role moderator
          claim user_role = moderator

        table public.posts
          owner author_id
          read anyone
          insert owner
          update owner or admin
          delete owner or moderator
        """

    func testHoldersMayForgersMayNot() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.posts: admin updates A's row", "public.posts: forged admin updates A's row",
                "public.posts: moderator deletes A's row", "public.posts: forged moderator deletes A's row",
            ],
            bugs: [
                .init(
                    what: "the admin check reads user_metadata, which users write themselves",
                    sql:
                        "drop policy edit on public.posts; create policy edit on public.posts for update to authenticated using (author_id = (select auth.uid()) or ((select auth.jwt()) -> 'user_metadata' ->> 'role') = 'admin');",
                    fails: ["public.posts: forged admin updates A's row", "public.posts: admin updates A's row"]),
                .init(
                    what: "the moderator check falls back to user_metadata",
                    sql:
                        "drop policy remove on public.posts; create policy remove on public.posts for delete to authenticated using (author_id = (select auth.uid()) or coalesce((select auth.jwt()) ->> 'user_role', (select auth.jwt()) -> 'user_metadata' ->> 'user_role') = 'moderator');",
                    fails: ["public.posts: forged moderator deletes A's row"]),
                .init(
                    what: "the admin exception was forgotten",
                    sql:
                        "drop policy edit on public.posts; create policy edit on public.posts for update to authenticated using (author_id = (select auth.uid()));",
                    fails: ["public.posts: admin updates A's row"]),
            ])
    }

    func testTheHolderCarriesTheClaimWhereThePlatformPutsIt() throws {
        let file = try AccessFile.parse(Self.access, path: "a.rls")
        let admin = file.roles[0].holder
        let moderator = file.roles[1].holder
        let forged = file.roles[0].forger
        let claims = try JSON(parsing: admin.claims)
        XCTAssertEqual(claims["app_metadata"]?["role"], .string("admin"))
        XCTAssertEqual(claims["app_metadata"]?["provider"], .string("email"))
        XCTAssertEqual(try JSON(parsing: moderator.claims)["user_role"], .string("moderator"))
        let forgedClaims = try JSON(parsing: forged.claims)
        XCTAssertEqual(forgedClaims["user_metadata"]?["role"], .string("admin"))
        XCTAssertNil(forgedClaims["app_metadata"]?["role"])
        // GoTrue copies raw_app_meta_data into the token: the sign-up row must carry it too.
        let signUp = SignUp.script([admin], columns: ["id", "raw_app_meta_data"], authAdminExists: false)
        XCTAssertTrue(signUp.contains("\"role\":\"admin\""), signUp)
    }
}
