import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Two buckets of ours: `receipts` (folder ownership; upload yes, overwrite, move and delete no;
/// PNG up to 2 KiB, enforced by the upload policy, as the bucket takes text and 4 KiB too) and `files` (owner-id ownership, random names
/// one folder deep). Correct as written; each breakage is one bug class the matrix must catch.
let bucketFixtureSQL = """
    insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
    values ('receipts', 'receipts', false, 4096, array['image/png', 'text/plain']), ('files', 'files', false, null, null);
    create policy "receipts: read own folder" on storage.objects for select to authenticated
      using (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text);
    create policy "receipts: upload png into own folder" on storage.objects for insert to authenticated
      with check (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text
        and (metadata->>'mimetype') = 'image/png' and (metadata->>'contentLength')::bigint <= 2048);
    create policy "files: read own" on storage.objects for select to authenticated
      using (bucket_id = 'files' and owner_id = (select auth.uid())::text);
    create policy "files: upload own" on storage.objects for insert to authenticated
      with check (bucket_id = 'files' and owner_id = (select auth.uid())::text);
    create policy "files: update own" on storage.objects for update to authenticated
      using (bucket_id = 'files' and owner_id = (select auth.uid())::text)
      with check (bucket_id = 'files' and owner_id = (select auth.uid())::text);
    create policy "files: delete own" on storage.objects for delete to authenticated
      using (bucket_id = 'files' and owner_id = (select auth.uid())::text);
    insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
    create function public.photo_ok(name text, metadata jsonb) returns boolean language sql stable as $$
      select (storage.foldername(name))[1] = (select auth.uid())::text
         and metadata->>'mimetype' like 'image/%' and (metadata->>'contentLength')::bigint <= 4096 $$;
    create policy "photos: read own folder" on storage.objects for select to authenticated
      using (bucket_id = 'photos' and (storage.foldername(name))[1] = (select auth.uid())::text);
    create policy "photos: upload" on storage.objects for insert to authenticated
      with check (bucket_id = 'photos' and public.photo_ok(name, metadata));
    create policy "photos: update" on storage.objects for update to authenticated
      using (bucket_id = 'photos' and (storage.foldername(name))[1] = (select auth.uid())::text)
      with check (bucket_id = 'photos' and public.photo_ok(name, metadata));
    create policy "photos: delete" on storage.objects for delete to authenticated
      using (bucket_id = 'photos' and (storage.foldername(name))[1] = (select auth.uid())::text);

    """

let bucketFixtureAccess = """
    bucket receipts
      read owner
      upload owner
      overwrite nobody
      move nobody
      delete nobody
      mime image/png
      size 2048
    bucket files
      ownership owner-id
      read owner
      write owner
    bucket photos
      read public
      write own-folder
      mime image/*
      size 4096

    """

final class BucketMatrixTests: XCTestCase {
    func matrix(_ breakage: String = "", access: String = bucketFixtureAccess) throws -> TestReport {
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "b.rls")]
        return try Fixture.run(breakage: bucketFixtureSQL + breakage, input: input)
    }

    /// An upload trigger that files each object by its name under its folder (`path_tokens[2]`,
    /// as apps that index uploads do): owner-id buckets' objects have one, as apps name them.
    func testUploadTriggersFindTheFileUnderItsFolder() throws {
        let report = try matrix(
            """
            create table public.uploads (object_id uuid primary key, file text not null, folder text not null);
            create function public.on_upload() returns trigger language plpgsql security definer set search_path = '' as $$
            begin
              if new.bucket_id = 'files' then
                insert into public.uploads (object_id, file, folder) values (new.id, new.path_tokens[2], new.path_tokens[1]);
              end if;
              return new;
            end $$;
            create trigger on_upload after insert on storage.objects for each row execute function public.on_upload();
            """)
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        XCTAssertFalse(report.outcomes.contains { $0.suite == "bucket files" && $0.status == .skipped })
    }

    func testCorrectBucketsPassEveryOperation() throws {
        let report = try matrix()
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        let names = Set(report.outcomes.map { "\($0.suite): \($0.name)" })
        for expected in [
            "bucket receipts: A uploads into own folder", "bucket receipts: A overwrites own object",
            "bucket receipts: A uploads into B's folder, under a sub-folder named for A",
            "bucket receipts: A uploads into own folder, under a sub-folder named for B",
            "bucket receipts: A moves own object", "bucket receipts: A deletes own object",
            "bucket receipts: A uploads a text/plain file (mime allows image/png)",
            "bucket receipts: A uploads a file of 2049 bytes (size allows 2048)",
            "bucket receipts: bucket is private (no public URLs)",
            "bucket files: A uploads a new object", "bucket files: A lists B's object",
            "bucket files: A overwrites B's object", "bucket files: A moves B's object",
            "bucket files: A deletes B's object", "bucket files: A deletes own object",
            "bucket photos: bucket is public (files served by URL)", "bucket photos: A overwrites own object",
            "bucket photos: A uploads a text/plain file (mime allows image/*)",
        ] {
            XCTAssertTrue(names.contains(expected), expected)
        }
        XCTAssertFalse(names.contains("bucket files: A uploads into B's folder"), "owner-id buckets have no folders")
        // Each check points at the line that declared what it expects.
        let line = { (name: String) in
            report.outcomes.first { $0.suite == "bucket receipts" && $0.name == name }?.location?.line
        }
        XCTAssertEqual(line("A lists B's object"), 2)
        XCTAssertEqual(line("A uploads into own folder"), 3)
        XCTAssertEqual(line("A deletes own object"), 6)
        XCTAssertEqual(
            report.outcomes.first { $0.suite == "bucket files" && $0.name == "A moves B's object" }?.location?.line, 12)
    }

    /// Without 'mime'/'size' the uploads take the bucket's allowed_mime_types and file_size_limit,
    /// so an upload policy on the metadata lets the declared uploads through.
    func testUploadsCarryTheBucketsTypeAndSize() throws {
        let access =
            "bucket receipts\n  read owner\n  upload owner\n  overwrite nobody\n  move nobody\n  delete nobody\n"
        let report = try matrix(access: access)
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        XCTAssertTrue(report.outcomes.contains { $0.name == "A uploads into own folder" })
        XCTAssertFalse(report.outcomes.contains { $0.name.hasPrefix("A uploads a text/plain") })
    }

    /// Buckets made from config.toml give their first allowed type and their size limit to uploads.
    func testConfigTomlBucketSettingsReachTheUploads() throws {
        let config = try SupabaseConfig.parse(
            """
            [storage.buckets.invoices]
            public = false
            file_size_limit = "512B"
            allowed_mime_types = ["application/pdf"]
            """, path: "config.toml")
        let db = try OurSchema.makeDatabase(
            extra: """
                create policy "invoices: pdf into own folder" on storage.objects for insert to authenticated
                  with check (bucket_id = 'invoices' and (storage.foldername(name))[1] = (select auth.uid())::text
                    and metadata->>'mimetype' = 'application/pdf' and (metadata->>'contentLength')::int <= 512);
                create policy "invoices: read own" on storage.objects for select to authenticated
                  using (bucket_id = 'invoices' and (storage.foldername(name))[1] = (select auth.uid())::text);
                """)
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        _ = try ConfigBuckets.create(conn, config.buckets)
        XCTAssertEqual(
            try BucketFacts.load(conn, "invoices"), BucketFacts(sizeLimit: 512, allowedTypes: ["application/pdf"]))
        XCTAssertNil(try BucketFacts.load(conn, "nope"))
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse("bucket invoices\n  read owner\n  write nobody\n  upload owner\n", path: "i.rls")
        ]
        let report = try Harness.run(input, options: HarnessOptions(), on: db.connectionString)
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        let upload = try XCTUnwrap(report.outcomes.first { $0.name == "A uploads into own folder" })
        XCTAssertTrue(upload.sql?.contains("rlskit-new.pdf") ?? false, upload.sql ?? "")
    }

    /// The Storage API's permission check carries no `size` (only mimetype and contentLength), so
    /// an upload policy on `metadata->>'size'` refuses every upload: the matrix shows the lockout.
    func testPolicyOnSizeLocksEveryUploadOut() throws {
        let report = try matrix(
            """
            drop policy "receipts: upload png into own folder" on storage.objects;
            create policy "receipts: upload" on storage.objects for insert to authenticated
              with check (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text
                and (metadata->>'mimetype') = 'image/png' and (metadata->>'size')::bigint <= 2048);
            """)
        let failed = report.outcomes.filter(\.isFailure).map(\.name)
        XCTAssertEqual(
            failed, ["A uploads into own folder", "A uploads into own folder, under a sub-folder named for B"])
    }

    /// The access-file page's bucket example is this fixture's access file, and passes on it.
    func testReadmeExamplePassesOnTheFixture() throws {
        let block = try DocPage.block(after: "## Buckets", in: "docs/access-files.md")
        let report = try matrix(access: block + "\n")
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        XCTAssertGreaterThan(report.outcomes.filter { $0.suite == "bucket files" }.count, 10)
    }

    struct Bug {
        var what: String
        var sql: String
        var fails: [(String, String)]
    }

    let bugs: [Bug] = [
        Bug(
            what: "overwrite allowed though declared nobody",
            sql: """
                create policy "receipts: update own" on storage.objects for update to authenticated
                  using (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text);
                """,
            fails: [("bucket receipts", "A overwrites own object"), ("bucket receipts", "A moves own object")]),
        Bug(
            what: "delete allowed though declared nobody",
            sql: """
                create policy "receipts: delete own" on storage.objects for delete to authenticated
                  using (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text);
                """,
            fails: [("bucket receipts", "A deletes own object")]),
        Bug(
            what: "others' folders listed",
            sql: """
                drop policy "receipts: read own folder" on storage.objects;
                create policy "receipts: read" on storage.objects for select to authenticated using (bucket_id = 'receipts');
                """,
            fails: [("bucket receipts", "A lists B's object")]),
        Bug(
            what: "owner-id bucket readable by every signed-in user",
            sql: """
                create policy "files: read all" on storage.objects for select to authenticated using (bucket_id = 'files');
                """,
            fails: [("bucket files", "A lists B's object")]),
        Bug(
            // Without the read policy PostgreSQL hides B's row from A's upsert and update already.
            what: "owner-id objects read, overwritten and moved by others",
            sql: """
                create policy "files: read all" on storage.objects for select to authenticated using (bucket_id = 'files');
                drop policy "files: update own" on storage.objects;
                create policy "files: update" on storage.objects for update to authenticated
                  using (bucket_id = 'files') with check (bucket_id = 'files' and owner_id = (select auth.uid())::text);
                """,
            fails: [
                ("bucket files", "A lists B's object"), ("bucket files", "A overwrites B's object"),
                ("bucket files", "A moves B's object"),
            ]),
        Bug(
            what: "uploads allowed wherever the caller's id is one of the folders",
            sql: """
                drop policy "receipts: upload png into own folder" on storage.objects;
                create policy "receipts: upload" on storage.objects for insert to authenticated
                  with check (bucket_id = 'receipts' and (select auth.uid())::text = any (storage.foldername(name))
                    and (metadata->>'mimetype') = 'image/png' and (metadata->>'contentLength')::bigint <= 2048);
                """,
            fails: [("bucket receipts", "A uploads into B's folder, under a sub-folder named for A")]),
        Bug(
            what: "mimetype not enforced",
            sql: """
                drop policy "receipts: upload png into own folder" on storage.objects;
                create policy "receipts: upload" on storage.objects for insert to authenticated
                  with check (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text
                    and (metadata->>'contentLength')::bigint <= 2048);
                """,
            fails: [("bucket receipts", "A uploads a text/plain file (mime allows image/png)")]),
        Bug(
            what: "size not enforced",
            sql: """
                drop policy "receipts: upload png into own folder" on storage.objects;
                create policy "receipts: upload" on storage.objects for insert to authenticated
                  with check (bucket_id = 'receipts' and (storage.foldername(name))[1] = (select auth.uid())::text
                    and (metadata->>'mimetype') = 'image/png');
                """,
            fails: [("bucket receipts", "A uploads a file of 2049 bytes (size allows 2048)")]),
        Bug(
            what: "private bucket made public",
            sql: "update storage.buckets set public = true where id = 'receipts';",
            fails: [("bucket receipts", "bucket is private (no public URLs)")]),
    ]

    func testEachBugClassFailsNamingBucketActorAndOperation() throws {
        for bug in bugs {
            let report = try matrix(bug.sql)
            XCTAssertFalse(report.passed, "\(bug.what): not caught")
            let failed = report.outcomes.filter(\.isFailure)
            for (suite, name) in bug.fails {
                guard let o = failed.first(where: { $0.suite == suite && $0.name == name }) else {
                    XCTFail("\(bug.what): '\(suite): \(name)' did not fail; failures: \(failed.map(\.name))")
                    continue
                }
                let msg = o.message ?? ""
                XCTAssertTrue(msg.hasPrefix(suite + " · "), "\(bug.what): \(msg)")
                XCTAssertTrue(msg.contains("as \(o.actor!)"), "\(bug.what): \(msg)")
                XCTAssertTrue(["select", "insert", "update", "delete"].contains { msg.contains("· \($0) ·") }, msg)
            }
            let unexpected = failed.filter { o in !bug.fails.contains { $0 == (o.suite, o.name) } }
            XCTAssertLessThanOrEqual(unexpected.count, 2, "\(bug.what): also \(unexpected.map(\.name))")
        }
    }
}
