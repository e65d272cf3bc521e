import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A bucket's own allowed_mime_types and file_size_limit: the Storage API refuses what they
/// forbid before the database, so only what the bucket takes and the access file does not must
/// be refused by a policy.
final class BucketSettingsTests: XCTestCase {
    /// `scans` takes PDFs and PNGs up to 1000 bytes; its upload policy checks the folder only.
    func scans(types: String, limit: String) -> String {
        """
        insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
        values ('scans', 'scans', false, \(limit), \(types));
        create policy "scans: read own folder" on storage.objects for select to authenticated
          using (bucket_id = 'scans' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "scans: upload into own folder" on storage.objects for insert to authenticated
          with check (bucket_id = 'scans' and (storage.foldername(name))[1] = (select auth.uid())::text);

        """
    }

    let access = """
        bucket scans
          read owner
          upload owner
          overwrite nobody
          move nobody
          delete nobody
          mime application/pdf image/png
          size 1000

        """

    func run(_ sql: String, access: String) throws -> TestReport {
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "s.rls")]
        return try Fixture.run(breakage: sql, input: input)
    }

    func testWhatTheBucketForbidsCountsAsRefused() throws {
        let report = try run(scans(types: "array['application/pdf', 'image/png']", limit: "1000"), access: access)
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        let names = Set(report.outcomes.map(\.name))
        for n in [
            "A uploads a text/plain file (mime allows application/pdf, image/png): refused by the bucket's settings",
            "A uploads a file of 1001 bytes (size allows 1000): refused by the bucket's settings",
        ] {
            XCTAssertTrue(names.contains(n), "missing \(n) in \(names.sorted())")
        }
        let typed = try XCTUnwrap(report.outcomes.first { $0.name.hasPrefix("A uploads a text/plain") })
        XCTAssertEqual(typed.location?.line, 7, "points at the mime line")
        XCTAssertEqual(typed.intendedAllowed, false)
    }

    /// What the bucket takes but the access file does not must be refused by the policies.
    func testWhatTheBucketTakesMustBeRefusedByPolicy() throws {
        let report = try run(scans(types: "array['image/*', 'application/pdf']", limit: "5000"), access: access)
        let failed = report.outcomes.filter(\.isFailure).map(\.name).sorted()
        XCTAssertEqual(
            failed,
            [
                "A uploads a file of 1001 bytes (size allows 1000)",
                "A uploads an image/svg+xml file (mime allows application/pdf, image/png)",
            ])
        // The bucket's setting is the refusal only while the row says so: a changed bucket fails it.
        let loosened = try run(
            scans(types: "array['application/pdf', 'image/png']", limit: "1000")
                + "update storage.buckets set allowed_mime_types = null, file_size_limit = null where id = 'scans';",
            access: access)
        XCTAssertTrue(loosened.outcomes.contains { $0.name.hasPrefix("A uploads a text/plain") && $0.isFailure })
        XCTAssertEqual(
            ["image/png", "application/pdf", "audio/ogg", "text/plain", "video/mp4"].map(BucketMatrix.article),
            ["an", "an", "an", "a", "a"])
    }
}
