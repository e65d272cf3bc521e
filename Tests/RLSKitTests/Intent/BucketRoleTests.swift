import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Bucket values name declared roles: an admin (app_metadata.role) reads and deletes every
/// report; a user who writes the same role into user_metadata is nobody special.
final class BucketRoleTests: XCTestCase {
    static let schema = """
        insert into storage.buckets (id, name, public) values ('reports', 'reports', false);
        create policy "reports: read own or admin" on storage.objects for select to authenticated
          using (bucket_id = 'reports' and ((storage.foldername(name))[1] = (select auth.uid())::text
            or (select auth.jwt() -> 'app_metadata' ->> 'role') = 'admin'));
        create policy "reports: upload own" on storage.objects for insert to authenticated
          with check (bucket_id = 'reports' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "reports: delete own or admin" on storage.objects for delete to authenticated
          using (bucket_id = 'reports' and ((storage.foldername(name))[1] = (select auth.uid())::text
            or (select auth.jwt() -> 'app_metadata' ->> 'role') = 'admin'));
        """

    static let access = """
        role admin
          claim app_metadata.role = admin
        bucket reports
          read owner or admin
          upload owner
          overwrite nobody
          move nobody
          delete owner or admin
        """

    func testRoleHoldersAndForgersActOnBuckets() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "bucket reports: admin lists A's object", "bucket reports: admin deletes A's object",
                "bucket reports: forged admin lists A's object", "bucket reports: forged admin deletes A's object",
                "bucket reports: admin uploads into A's folder", "bucket reports: admin overwrites A's object",
                "bucket reports: A deletes B's object",
            ],
            bugs: [
                .init(
                    what: "the role is read from user_metadata, which users write themselves",
                    sql: """
                        drop policy "reports: read own or admin" on storage.objects;
                        create policy "reports: read" on storage.objects for select to authenticated
                          using (bucket_id = 'reports' and ((storage.foldername(name))[1] = (select auth.uid())::text
                            or (select auth.jwt() -> 'user_metadata' ->> 'role') = 'admin'));
                        """,
                    fails: ["bucket reports: forged admin lists A's object", "bucket reports: admin lists A's object"]),
                .init(
                    what: "admins cannot delete others' reports",
                    sql: """
                        drop policy "reports: delete own or admin" on storage.objects;
                        create policy "reports: delete own" on storage.objects for delete to authenticated
                          using (bucket_id = 'reports' and (storage.foldername(name))[1] = (select auth.uid())::text);
                        """,
                    fails: ["bucket reports: admin deletes A's object"]),
                .init(
                    what: "every signed-in user lists every report",
                    sql: """
                        create policy "reports: read all" on storage.objects for select to authenticated
                          using (bucket_id = 'reports');
                        """,
                    fails: ["bucket reports: forged admin lists A's object", "bucket reports: A lists B's object"]),
            ])
    }
}
