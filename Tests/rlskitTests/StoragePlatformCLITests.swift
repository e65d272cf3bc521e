import Foundation
import TestSupport
import XCTest

/// Storage as the platform has it since 2025: postgres owns none of its tables (DDL on them is
/// refused), the S3 multipart tables exist, and direct deletes meet storage's own guard.
final class StoragePlatformCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func project(migrations: [String: String], tests: [String: String] = [:]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (sub, files) in [("m", migrations), ("t", tests)] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
            for (n, t) in files { try t.write(toFile: dir + "/\(sub)/" + n, atomically: true, encoding: .utf8) }
        }
        return dir
    }

    func testMultipartTablesPoliciesAndTheDeleteGuard() throws {
        let dir = try project(
            migrations: [
                "0001_policies.sql": """
                create policy "own uploads" on storage.s3_multipart_uploads for select to authenticated
                  using (owner_id = auth.uid()::text);
                create policy "own parts" on storage.s3_multipart_uploads_parts for select to authenticated
                  using (owner_id = auth.uid()::text);
                insert into storage.buckets (id, name) values ('docs', 'docs');

                """
            ],
            tests: [
                "storage_test.sql": """
                begin;
                select plan(7);
                select columns_are('storage', 's3_multipart_uploads', array['id', 'in_progress_size',
                  'upload_signature', 'bucket_id', 'key', 'version', 'owner_id', 'created_at', 'user_metadata',
                  'metadata'], 'the platform''s upload columns');
                select col_type_is('storage', 's3_multipart_uploads_parts', 'size', 'bigint', 'part sizes are bigint');
                select is((select relrowsecurity from pg_class where oid = 'storage.s3_multipart_uploads'::regclass),
                          true, 'RLS on the uploads');
                select is(has_table_privilege('anon', 'storage.s3_multipart_uploads_parts', 'insert'), false,
                          'anon only reads the parts');
                select throws_ok($$delete from storage.objects where bucket_id = 'docs'$$, '42501',
                  'Direct deletion from storage tables is not allowed. Use the Storage API instead.',
                  'a direct delete meets the guard');
                select throws_ok($$delete from storage.buckets where id = 'docs'$$, '42501', null,
                  'on buckets too');
                set local storage.allow_delete_query = 'true';
                select lives_ok($$delete from storage.objects where bucket_id = 'docs'$$,
                  'the Storage API''s own setting lets it delete');
                select * from finish();
                rollback;

                """
            ])
        let r = try CLI.run(
            ["check", "--dir", dir + "/m", "--tests", dir + "/t"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertTrue(r.stdout.contains("1 migration applied"), r.output)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +7 passed, 0 failed"#, options: .regularExpression), r.output)

        let refused = [
            ("alter table storage.objects add column note text;", "must be owner of table objects"),
            ("create index on storage.objects (created_at);", "must be owner of table objects"),
            (
                "alter table storage.s3_multipart_uploads disable row level security;",
                "must be owner of table s3_multipart_uploads"
            ),
            ("comment on table storage.buckets is 'files';", "must be owner of table buckets"),
            ("delete from storage.objects where bucket_id = 'docs';", "Direct deletion from storage tables"),
            ("delete from storage.buckets;", "Direct deletion from storage tables"),
        ]
        for (k, (sql, message)) in refused.enumerated() {
            let file = dir + "/m/000\(2 + k)_refused.sql"
            try (sql + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let f = try CLI.run(["apply", "--dir", dir + "/m"], environment: ["TMPDIR": dir], directory: dir)
            XCTAssertEqual(f.code, 3, sql + "\n" + f.output)
            XCTAssertTrue(f.stderr.contains("_refused.sql:1:1: " + message), sql + "\n" + f.stderr)
            XCTAssertTrue(f.stderr.contains("it would fail there too"), f.stderr)
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
