import Foundation
import TestSupport
import XCTest

/// The Markdown summary for CI (GITHUB_STEP_SUMMARY, --summary FILE) and the GitHub annotations.
final class CISummaryTests: XCTestCase {
    /// A schema with a leak: the step summary gains a failing-cells table after what earlier
    /// steps wrote, --summary gets the same text, and each failing check is annotated on its file:line.
    func testFailingCheckWritesSummaryAndAnnotations() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let root = Provisioned.repositoryRoot
        _ = try OurSchema.migrationsWithUpdateLeak(in: tmp, policy: "anyone | updates")
        try "earlier step\n".write(toFile: tmp + "/step.md", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--tests", root + "/sql/tests", "--summary", tmp + "/s.md"],
            environment: ["TMPDIR": tmp, "GITHUB_STEP_SUMMARY": tmp + "/step.md", "GITHUB_ACTIONS": "true"],
            directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        let step = try String(contentsOfFile: tmp + "/step.md", encoding: .utf8)
        let own = try String(contentsOfFile: tmp + "/s.md", encoding: .utf8)
        XCTAssertTrue(step.hasPrefix("earlier step\n## rlskit check: failed\n"), step)
        XCTAssertEqual(step, "earlier step\n" + own + "\n")
        XCTAssertTrue(own.contains("| ❌ | test |"), own)
        XCTAssertTrue(own.contains("| ✅ | apply |"), own)
        XCTAssertTrue(own.contains("| table or file | actor | check | expected vs got | declared at |"), own)
        let rows = own.split(separator: "\n").filter { $0.hasPrefix("| `public.profiles` |") }
        XCTAssertFalse(rows.isEmpty, own)
        XCTAssertTrue(
            rows.allSatisfy {
                $0.contains("sql/tests/")
                    && $0.replacingOccurrences(of: "\\|", with: "").split(separator: "|").count == 5
            }, own)
        XCTAssertTrue(own.contains("**audit:**"), own)
        XCTAssertFalse(own.contains("passed in"), own)

        let annotations = r.stdout.split(separator: "\n").filter { $0.hasPrefix("::error file=") }
        XCTAssertFalse(annotations.isEmpty, r.stdout)
        let first = try XCTUnwrap(annotations.first)
        XCTAssertTrue(first.contains("sql/tests/") && first.contains(".rls,line="), String(first))
        XCTAssertTrue(first.contains("title=rlskit%3A public.profiles"), String(first))
    }

    /// Without GITHUB_ACTIONS there are no workflow commands; --summary alone writes the file.
    func testPassingTestRunSummaryFileOnly() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(
            ["test", Provisioned.repositoryRoot + "/sql/tests", "--summary", tmp + "/s.md"],
            environment: ["TMPDIR": tmp], directory: Provisioned.repositoryRoot)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertFalse(r.output.contains("::error"), r.output)
        let own = try String(contentsOfFile: tmp + "/s.md", encoding: .utf8)
        XCTAssertTrue(own.hasPrefix("## rlskit test: passed\n"), own)
        XCTAssertTrue(own.contains(", 0 failed, "), own)
        XCTAssertFalse(own.contains("| table or file |"), own)
        for command in [["test", "sql/tests"], ["audit"]] {
            let many = try CLI.run(
                command + [
                    "--database-url", "postgresql://a@127.0.0.1:1/x", "--database-url", "postgresql://b@127.0.0.1:1/y",
                    "--html", tmp + "/m.html",
                ], directory: Provisioned.repositoryRoot)
            // One report per database reached (ManyDatabasesReportTests); these cannot be reached.
            XCTAssertEqual(many.code, 3, many.output)
            XCTAssertFalse(FileManager.default.fileExists(atPath: tmp + "/m.x.html"), many.output)
        }
        let bad = try CLI.run(["test", "--summary", tmp], directory: Provisioned.repositoryRoot)
        XCTAssertEqual(bad.code, 2, bad.output)
        XCTAssertEqual(bad.stderr, "rlskit: cannot write \(tmp): it is a directory\n")
    }
}

/// The audit's summary: findings grouped by level with fix text and fingerprint.
final class CIAuditSummaryTests: XCTestCase {
    func testAuditSummaryGroupsFindingsByLevel() throws {
        let db = try StandIn.makeDatabase(prefix: "cisum")
        defer { TestServer.drop(db.name) }
        try StandIn.apply(file: "Tests/Fixtures/seed000-as-written.sql", db.conn)
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(
            ["audit", "--database-url", db.connectionString.raw],
            environment: ["GITHUB_STEP_SUMMARY": tmp + "/step.md", "GITHUB_ACTIONS": "true"])
        XCTAssertEqual(r.code, 1, r.output)
        let step = try String(contentsOfFile: tmp + "/step.md", encoding: .utf8)
        XCTAssertTrue(step.hasPrefix("## rlskit audit: failed\n"), step)
        XCTAssertTrue(step.contains("<details open><summary>ERROR ("), step)
        XCTAssertTrue(step.contains("| lint | object | fix | fingerprint |"), step)
        XCTAssertTrue(step.contains("storage_write_without_owner_check"), step)
        XCTAssertTrue(r.stdout.contains("::error title=rlskit "), r.stdout)
        XCTAssertFalse(step.contains(db.connectionString.raw), "no connection string in the summary")
    }
}
