import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A scenario's `upload` step carries the metadata of the Storage API's permission check, the
/// same as the bucket matrix's uploads: a policy on the type behaves the same in both.
final class ScenarioUploadTests: XCTestCase {
    static let sql = """
        insert into storage.buckets (id, name, public) values ('papers', 'papers', false);
        create policy "papers: read own folder" on storage.objects for select to authenticated
          using (bucket_id = 'papers' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "papers: pdf into own folder" on storage.objects for insert to authenticated
          with check (bucket_id = 'papers' and (storage.foldername(name))[1] = (select auth.uid())::text
            and metadata->>'mimetype' = 'application/pdf' and (metadata->>'contentLength')::int <= 4096);

        """

    static let scenario = """
        scenario uploads carry the file's type
          user alice
          as alice: upload papers {alice}/report.pdf
            expect 1 row affected
          as alice: upload papers {alice}/notes.TXT
            expect denied by rls
          as alice: upload papers {alice}/archive
            expect denied by rls
        """

    func testUploadStepsSendTheMatrixMetadata() throws {
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse(
                "bucket papers\n  read owner\n  upload owner\n  overwrite nobody\n  move nobody\n  delete nobody\n"
                    + "  mime application/pdf\n", path: "p.rls")
        ]
        input.scenarios = [("p.scenario", try ScenarioFile.parse(Self.scenario, path: "p.scenario"))]
        let report = try Fixture.run(breakage: Self.sql, input: input)
        XCTAssertTrue(report.passed, "\(report.outcomes.filter(\.isFailure).map { $0.message ?? $0.name })")
        XCTAssertTrue(report.outcomes.contains { $0.name == "A uploads into own folder" })
        XCTAssertEqual(report.outcomes.filter { $0.suite.contains("uploads carry") }.count, 3)
    }

    func testTypeFollowsTheExtension() throws {
        XCTAssertEqual(BucketUploads.type(ofName: "a/b/report.PDF"), "application/pdf")
        XCTAssertEqual(BucketUploads.type(ofName: "x.jpg"), "image/jpeg")
        XCTAssertEqual(BucketUploads.type(ofName: "dir.png/file"), "application/octet-stream")
        XCTAssertEqual(BucketUploads.type(ofName: ".hidden"), "application/octet-stream")
        let (sql, op) = try XCTUnwrap(Scenario.storageSQL("upload papers u/a.png", actor: .anon))
        XCTAssertEqual(op, "storage.object.upload")
        XCTAssertTrue(sql.contains(#"'{"mimetype": "image/png", "contentLength": 1024}'::jsonb"#), sql)
    }
}
