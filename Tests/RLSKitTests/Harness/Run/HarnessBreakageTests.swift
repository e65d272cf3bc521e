import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Deliberate breakages applied to a copy of our schema: each must make the run fail, with a
/// message naming the table (or bucket), the actor and the operation.
final class HarnessBreakageTests: XCTestCase {
    struct Breakage {
        var what: String
        var sql: String
        /// (suite, check name) that must fail.
        var fails: [(String, String)]
    }

    static let storageOwn =
        "bucket_id in ('avatars', 'post-images') and (storage.foldername(name))[1] = (select auth.uid())::text"

    let breakages: [Breakage] = [
        Breakage(
            what: "update policy using (true)",
            sql:
                "drop policy \"Users can update own profile.\" on public.profiles; create policy u on public.profiles for update to authenticated using (true);",
            fails: [("public.profiles", "A updates B's row"), ("public.profiles", "A hands own row over to B")]),
        Breakage(
            what: "insert policy with check (true)",
            sql:
                "drop policy \"Users create their own posts\" on public.posts; create policy i on public.posts for insert to authenticated with check (true);",
            fails: [("public.posts", "A inserts a row owned by B")]),
        Breakage(
            what: "RLS disabled on an owner-only table",
            sql: "alter table public.notes disable row level security;",
            fails: [
                ("public.notes", "row level security is enabled"), ("public.notes", "A reads B's row"),
                ("public.notes", "A updates B's row"),
                ("public.notes", "A deletes B's row"),
            ]),
        Breakage(
            what: "storage insert policy without the folder check",
            sql:
                "drop policy \"Users upload into their own folder\" on storage.objects; create policy up on storage.objects for insert to authenticated with check (bucket_id in ('avatars', 'post-images'));",
            fails: [
                ("bucket avatars", "A uploads into B's folder"), ("bucket avatars", "A uploads outside any folder"),
                ("bucket post-images", "A uploads into B's folder"),
            ]),
        Breakage(
            what: "policy trusting user_metadata",
            sql:
                "create policy admin_edit on public.posts for update to authenticated using ((auth.jwt() -> 'user_metadata' ->> 'role') = 'admin');",
            fails: [("public.posts", "M updates B's row")]),
        Breakage(
            what: "helper function trusting user_metadata",
            sql: """
                create function public.is_admin() returns boolean language sql stable as $$ select coalesce((auth.jwt() -> 'user_metadata' ->> 'is_admin')::boolean, false) $$;
                create policy admin_all on public.notes for all to authenticated using (public.is_admin());
                """,
            fails: [
                ("public.notes", "M reads B's row"), ("public.notes", "M deletes B's row"),
                ("public.notes", "M updates B's row"),
            ]),
        Breakage(
            what: "update WITH CHECK weaker than USING (row can be handed over)",
            sql:
                "drop policy \"Users update their own posts\" on public.posts; create policy u on public.posts for update to authenticated using ((select auth.uid()) = author_id) with check (true); alter table public.posts drop constraint posts_image_path_in_author_folder;",
            fails: [("public.posts", "A hands own row over to B")]),
        Breakage(
            what: "delete policy using (true)",
            sql:
                "drop policy \"Users delete their own posts\" on public.posts; create policy d on public.posts for delete to authenticated using (true);",
            fails: [("public.posts", "A deletes B's row")]),
        Breakage(
            what: "declared-public read narrowed to the owner",
            sql:
                "drop policy \"Public profiles are viewable by everyone.\" on public.profiles; create policy r on public.profiles for select to authenticated using ((select auth.uid()) = id);",
            fails: [("public.profiles", "A reads B's row"), ("public.profiles", "anon reads A's row")]),
        Breakage(
            what: "missing INSERT grant",
            sql: "revoke insert on public.posts from authenticated;",
            fails: [("public.posts", "A inserts own row")]),
        Breakage(
            what: "anon granted writes with a permissive policy",
            sql:
                "grant insert, update on public.posts to anon; create policy anyone_writes on public.posts for all to anon using (true) with check (true);",
            fails: [("public.posts", "anon inserts a row owned by A"), ("public.posts", "anon updates A's row")]),
        Breakage(
            what: "auth.uid() is null or … disjunct",
            sql:
                "grant select, delete on public.notes to anon; create policy d on public.notes using (auth.uid() is null or auth.uid() = user_id);",
            fails: [("public.notes", "anon reads A's row"), ("public.notes", "anon deletes A's row")]),
        Breakage(
            what: "storage delete policy without the folder check",
            sql:
                "drop policy \"Users delete objects in their own folder\" on storage.objects; create policy del on storage.objects for delete to authenticated using (bucket_id = 'avatars');"
                + "drop policy \"Users read objects in their own folder\" on storage.objects; create policy sel on storage.objects for select to authenticated using (bucket_id = 'avatars');",
            fails: [("bucket avatars", "A deletes B's object"), ("bucket avatars", "A lists B's object")]),
        Breakage(
            what: "storage update WITH CHECK without the folder (objects can be moved)",
            sql:
                "drop policy \"Users update objects in their own folder\" on storage.objects; create policy mv on storage.objects for update to authenticated using (\(storageOwn)) with check (bucket_id in ('avatars', 'post-images'));"
                // The own-folder SELECT policy also guards the new row of an UPDATE; without it the move goes through.
                + "drop policy \"Users read objects in their own folder\" on storage.objects; create policy sel on storage.objects for select to authenticated using (bucket_id = 'avatars');",
            fails: [("bucket avatars", "A moves own object into B's folder")]),
        Breakage(
            what: "storage insert policy for everyone (seed's 'Anyone can upload')",
            sql: "create policy anyone_up on storage.objects for insert with check (bucket_id = 'avatars');",
            fails: [
                ("bucket avatars", "anon uploads into A's folder"), ("bucket avatars", "A uploads into B's folder"),
            ]),
        Breakage(
            what: "public bucket made private",
            sql: "update storage.buckets set public = false where id = 'post-images';",
            fails: [("bucket post-images", "bucket is public (files served by URL)")]),
        Breakage(
            what: "owner-only read opened to every signed-in user",
            sql:
                "drop policy \"own notes: read\" on public.notes; create policy r on public.notes for select to authenticated using (true);",
            fails: [("public.notes", "A reads B's row"), ("public.notes", "B reads A's row")]),
        Breakage(
            what: "policy trusting a claim in storage",
            sql:
                "create policy admins on storage.objects for delete to authenticated using ((auth.jwt() -> 'user_metadata' ->> 'role') = 'moderator');"
                + "create policy admins_read on storage.objects for select to authenticated using ((auth.jwt() -> 'user_metadata' ->> 'role') = 'moderator');",
            fails: [("bucket avatars", "M deletes B's object"), ("bucket avatars", "M lists B's object")]),
    ]

    func testEveryBreakageIsCaughtWithTableActorAndOperation() throws {
        XCTAssertGreaterThanOrEqual(breakages.count, 10)
        for b in breakages {
            let report = try Fixture.run(breakage: b.sql)
            XCTAssertFalse(report.passed, "\(b.what): not caught")
            let failed = report.outcomes.filter(\.isFailure)
            for (suite, name) in b.fails {
                guard let o = failed.first(where: { $0.suite == suite && $0.name == name }) else {
                    XCTFail(
                        "\(b.what): expected '\(suite): \(name)' to fail; failures: \(failed.map { "\($0.suite): \($0.name)" })"
                    )
                    continue
                }
                let msg = o.message ?? ""
                XCTAssertTrue(msg.hasPrefix(suite + " · "), "\(b.what): \(msg)")
                XCTAssertTrue(msg.contains("as \(o.actor!)"), "\(b.what): \(msg)")
                XCTAssertTrue(
                    ["select", "insert", "update", "delete", "rls"].contains { msg.contains("· \($0) ·") },
                    "\(b.what): \(msg)")
                XCTAssertNotNil(o.sql)
                // Every failed matrix check says which policies decided it (privilege denials aside).
                if o.status == .failed, o.intendedAllowed != nil, o.got?.hasPrefix("denied by privilege") == false {
                    XCTAssertNotNil(o.policies, "\(b.what): \(msg)")
                    XCTAssertFalse(msg.contains("evaluating the policies failed"), "\(b.what): \(msg)")
                }
            }
        }
    }

    func testRLSDenialAndMissingGrantAreReportedDifferently() throws {
        XCTAssertEqual(
            Observed(.failure(Self.error("42501", "new row violates row-level security policy for table \"posts\""))),
            .deniedByRLS("new row violates row-level security policy for table \"posts\""))
        XCTAssertEqual(
            Observed(.failure(Self.error("42501", "permission denied for table posts"))),
            .deniedByPrivilege("permission denied for table posts"))
        XCTAssertFalse(Expectation.deniedByRLS.accepts(.deniedByPrivilege("x")))
        XCTAssertFalse(Expectation.deniedByPrivilege.accepts(.deniedByRLS("x")))
        // A SELECT that RLS filters returns nothing; it does not fail.
        XCTAssertTrue(Expectation.hidden.accepts(.rows([["0"]])))
        XCTAssertFalse(Expectation.hidden.accepts(.rows([["1"]])))
    }

    static func error(_ state: String, _ message: String) -> PostgresError {
        PostgresError(kind: .server, message: message, sqlState: state)
    }
}
