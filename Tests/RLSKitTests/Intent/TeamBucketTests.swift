import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Team folders: a bucket whose objects live under `<team id>/…`, on the team fixture's
/// memberships. Members read, upload, overwrite and move; only owners delete.
final class TeamBucketTests: XCTestCase {
    static let bucketSQL = """
        insert into storage.buckets (id, name, public) values ('team-files', 'team-files', false);
        create function public.in_team_folder(name text) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.team_members m
            where m.team_id::text = (storage.foldername(name))[1] and m.user_id = (select auth.uid())) $$;
        create function public.team_owner_folder(name text) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.team_members m
            where m.team_id::text = (storage.foldername(name))[1] and m.user_id = (select auth.uid()) and m.role = 'owner') $$;
        create policy "team-files: members list" on storage.objects for select to authenticated
          using (bucket_id = 'team-files' and public.in_team_folder(name));
        create policy "team-files: members upload" on storage.objects for insert to authenticated
          with check (bucket_id = 'team-files' and public.in_team_folder(name));
        create policy "team-files: members move" on storage.objects for update to authenticated
          using (bucket_id = 'team-files' and public.in_team_folder(name))
          with check (bucket_id = 'team-files' and public.in_team_folder(name));
        create policy "team-files: owners delete" on storage.objects for delete to authenticated
          using (bucket_id = 'team-files' and public.team_owner_folder(name));

        """

    static let bucketAccess = """

        bucket team-files
          ownership group
          read members
          upload members
          overwrite members
          move members
          delete members with role owner
        """

    func matrix(_ breakage: String = "", bucket: String = bucketAccess) throws -> TestReport {
        try TeamFixture.run(breakage: Self.bucketSQL + breakage, access: TeamFixture.access + bucket)
    }

    func testCorrectTeamBucketPasses() throws {
        let report = try matrix()
        let failures = report.outcomes.filter(\.isFailure)
        XCTAssertTrue(
            report.passed, failures.map { "\($0.suite): \($0.name): \($0.message ?? "")" }.joined(separator: "\n"))
        let checks = report.outcomes.filter { $0.suite == "bucket team-files" }
        let names = Set(checks.map(\.name))
        for n in [
            "G1 owner lists G1's object", "G1 member deletes G1's object", "G1 owner deletes G1's object",
            "G2 owner lists G1's object", "G2 owner uploads into G1's folder", "outsider overwrites G1's object",
            "anon moves G1's object", "G1 owner uploads into G2's folder",
            "G1 owner moves G1's object into G2's folder",
            "G1 owner uploads into G2's folder, under a sub-folder named for G1",
            "G1 owner uploads into G1's folder, under a sub-folder named for G2",
            "G2 owner moves G2's object into G1's folder", "G1 owner lists G2's object",
            "bucket is private (no public URLs)",
        ] {
            XCTAssertTrue(names.contains(n), "missing check \(n) in \(names.sorted())")
        }
        // Both ways: members may, others may not.
        let allowed = { (n: String) in checks.first { $0.name == n }?.intendedAllowed }
        XCTAssertEqual(allowed("G1 member uploads into G1's folder"), true)
        XCTAssertEqual(allowed("G1 member deletes G1's object"), false)
        XCTAssertEqual(allowed("G1 owner deletes G1's object"), true)
        XCTAssertEqual(allowed("G1 owner lists G1's object"), true)
        XCTAssertEqual(allowed("outsider lists G1's object"), false)
        XCTAssertGreaterThan(checks.count, 25)
        // Each check points at the line that declared it.
        let line = { (n: String) in checks.first { $0.name == n }?.location?.line }
        XCTAssertEqual(line("G1 member deletes G1's object"), try XCTUnwrap(line("G1 owner moves G1's object")) + 1)
    }

    /// With several members blocks the bucket names the one its folders follow; declared roles'
    /// holders and forgers act on the team folders too.
    func testNamedMembersBlockAndRoleActors() throws {
        let channels = """
            create table public.channel_members (channel_id bigint not null, user_id uuid not null references auth.users (id));
            alter table public.channel_members enable row level security;

            """
        let extra = """

            members public.channel_members
              group channel_id
              user user_id
              read nobody
              add nobody
              remove nobody
              leave nobody
            role admin
              claim app_metadata.role = admin
            """
        let named = Self.bucketAccess.replacingOccurrences(
            of: "ownership group", with: "ownership group public.team_members")
        let report = try matrix(channels, bucket: extra + named)
        let failures = report.outcomes.filter(\.isFailure)
        XCTAssertTrue(
            report.passed, failures.map { "\($0.suite): \($0.name): \($0.message ?? "")" }.joined(separator: "\n"))
        let names = Set(report.outcomes.filter { $0.suite == "bucket team-files" }.map(\.name))
        for n in [
            "admin deletes G1's object", "forged admin uploads into G1's folder", "G1 member uploads into G1's folder",
        ] {
            XCTAssertTrue(names.contains(n), "missing check \(n)")
        }
        // Following the other block, the team folders' policies refuse what members were promised.
        let wrong = try matrix(
            channels,
            bucket: extra
                + Self.bucketAccess.replacingOccurrences(
                    of: "ownership group", with: "ownership group public.channel_members"
                ).replacingOccurrences(of: "delete members with role owner", with: "delete members"))
        let failed = wrong.outcomes.filter(\.isFailure).map(\.name)
        XCTAssertTrue(failed.contains("G1 member uploads into G1's folder"), "\(failed)")
        XCTAssertThrowsError(try AccessFile.parse(TeamFixture.access + extra + Self.bucketAccess, path: "t.rls")) {
            XCTAssertTrue("\($0)".contains("several members blocks, say which"), "\($0)")
        }
    }

    /// The access-file page's team folder example is this fixture's bucket block, and passes on it.
    func testReadmeExamplePassesOnTheFixture() throws {
        let block = try DocPage.block(after: "## Team folders (`ownership group`)", in: "docs/access-files.md")
        let report = try matrix(bucket: "\n" + block + "\n")
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        XCTAssertGreaterThan(report.outcomes.filter { $0.suite == "bucket team-files" }.count, 25)
    }

    /// With `mime`, G1's owner uploads a file of another type into G1's folder and expects it refused.
    func testRefusedTypeInTeamFolder() throws {
        let typed = Self.bucketAccess + "\n  mime image/png"
        let check = "G1 owner uploads a text/plain file (mime allows image/png)"
        let kept = try matrix(
            """
            drop policy "team-files: members upload" on storage.objects;
            create policy "team-files: members upload png" on storage.objects for insert to authenticated
              with check (bucket_id = 'team-files' and public.in_team_folder(name) and metadata->>'mimetype' = 'image/png');
            """, bucket: typed)
        XCTAssertTrue(kept.passed, "\(kept.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        XCTAssertTrue(kept.outcomes.contains { $0.name == check })
        let open = try matrix(bucket: typed)
        XCTAssertEqual(open.outcomes.filter(\.isFailure).map(\.name), [check])
    }

    struct Bug {
        let what: String
        let sql: String
        let fails: [String]
        var bucket = TeamBucketTests.bucketAccess
    }

    let bugs: [Bug] = [
        Bug(
            what: "every signed-in user lists every team's folder",
            sql: """
                drop policy "team-files: members list" on storage.objects;
                create policy "team-files: list" on storage.objects for select to authenticated using (bucket_id = 'team-files');
                """,
            fails: ["outsider lists G1's object", "G2 owner lists G1's object", "G1 owner lists G2's object"]),
        Bug(
            what: "a member of any team uploads into any team's folder",
            sql: """
                drop policy "team-files: members upload" on storage.objects;
                create policy "team-files: upload" on storage.objects for insert to authenticated
                  with check (bucket_id = 'team-files' and exists (select 1 from public.team_members m where m.user_id = (select auth.uid())));
                """,
            fails: [
                "G2 owner uploads into G1's folder", "G1 owner uploads into G2's folder",
                "G1 owner uploads outside any group folder",
                "G1 owner uploads into G2's folder, under a sub-folder named for G1",
            ]),
        // The folder that decides is the second one when there is one: members of G1 upload under
        // G2's folder into a sub-folder named for G1, and not into their own folder's sub-folders.
        Bug(
            what: "the upload policy reads the second folder",
            sql: """
                drop policy "team-files: members upload" on storage.objects;
                create policy "team-files: upload" on storage.objects for insert to authenticated
                  with check (bucket_id = 'team-files' and (storage.foldername(name))[1] is not null
                    and public.is_member(coalesce((storage.foldername(name))[2], (storage.foldername(name))[1])::uuid));
                """,
            fails: [
                "G1 owner uploads into G2's folder, under a sub-folder named for G1",
                "G1 owner uploads into G1's folder, under a sub-folder named for G2",
            ]),
        Bug(
            what: "plain members delete though only owners may",
            sql: """
                drop policy "team-files: owners delete" on storage.objects;
                create policy "team-files: delete" on storage.objects for delete to authenticated
                  using (bucket_id = 'team-files' and public.in_team_folder(name));
                """,
            fails: ["G1 member deletes G1's object"]),
        // The uploader still sees its object, so the move's RETURNING does not hide the new path.
        Bug(
            what: "a move's new path is not checked, so objects move into other teams' folders",
            sql: """
                drop policy "team-files: members list" on storage.objects;
                create policy "team-files: list" on storage.objects for select to authenticated
                  using (bucket_id = 'team-files' and (public.in_team_folder(name) or owner_id = (select auth.uid())::text));
                drop policy "team-files: members move" on storage.objects;
                create policy "team-files: move" on storage.objects for update to authenticated
                  using (bucket_id = 'team-files' and public.in_team_folder(name)) with check (bucket_id = 'team-files');
                """,
            fails: ["G1 owner moves G1's object into G2's folder", "G2 owner moves G2's object into G1's folder"]),
    ]

    func testEachBugClassFailsNamingBucketActorOperationAndPolicy() throws {
        for b in bugs {
            let report = try matrix(b.sql, bucket: b.bucket)
            XCTAssertFalse(report.passed, "\(b.what): not caught")
            let failed = report.outcomes.filter(\.isFailure)
            for name in b.fails {
                guard let o = failed.first(where: { $0.suite == "bucket team-files" && $0.name == name }) else {
                    XCTFail("\(b.what): '\(name)' did not fail; failures: \(failed.map { "\($0.suite): \($0.name)" })")
                    continue
                }
                let msg = o.message ?? ""
                XCTAssertTrue(msg.hasPrefix("bucket team-files · "), msg)
                XCTAssertTrue(msg.contains("as \(o.actor!)"), msg)
                XCTAssertTrue(["select", "insert", "update", "delete"].contains { msg.contains("· \($0) ·") }, msg)
                XCTAssertTrue(o.policies?.contains { $0.contains("\"team-files: ") } ?? false, "\(name): \(msg)")
            }
            let unexpected = failed.filter { !b.fails.contains($0.name) }
            XCTAssertTrue(unexpected.isEmpty, "\(b.what): also \(unexpected.map { "\($0.suite): \($0.name)" })")
        }
    }
}
