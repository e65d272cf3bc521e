import Foundation
import TestSupport
import XCTest

/// Several databases: one HTML report and one summary per database, named after it, and one
/// step summary section each.
final class ManyDatabasesReportTests: XCTestCase {
    func testTestAndAuditWriteOneReportAndSummaryPerDatabase() throws {
        let a = try Provisioned.database(prefix: "manyhtml")
        let b = try Provisioned.database(prefix: "manyhtml")
        defer {
            TestServer.drop(a.name)
            TestServer.drop(b.name)
        }
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let urls = ["--database-url", a.connectionString.raw, "--database-url", b.connectionString.raw]
        let step = tmp + "/step.md"
        for command in [["test", Provisioned.repositoryRoot + "/sql/tests"], ["audit"]] {
            let verb = command[0]
            try? FileManager.default.removeItem(atPath: step)
            let r = try CLI.run(
                command + urls + ["--html", tmp + "/\(verb).html", "--summary", tmp + "/\(verb)"],
                environment: ["GITHUB_STEP_SUMMARY": step, "TMPDIR": tmp])
            XCTAssertEqual(r.code, 0, r.output)
            for (mine, other) in [(a.name, b.name), (b.name, a.name)] {
                let html = try String(contentsOfFile: tmp + "/\(verb).\(mine).html", encoding: .utf8)
                XCTAssertTrue(html.contains("<dt>database</dt><dd>"), html)
                XCTAssertTrue(html.contains("\(mine) on "), "each report names its own database")
                XCTAssertFalse(html.contains("\(other) on "), "and only that one")
                XCTAssertTrue(html.contains(verb == "test" ? "<caption>public.posts <small>" : "Audit findings"))
                let md = try String(contentsOfFile: tmp + "/\(verb).\(mine)", encoding: .utf8)
                XCTAssertTrue(md.hasPrefix("## rlskit \(verb) on "), md)
                XCTAssertTrue(md.contains("\(mine) on "), md)
                for text in [html, md] { XCTAssertFalse(text.contains(a.connectionString.raw)) }
            }
            let summaries = try String(contentsOfFile: step, encoding: .utf8)
            XCTAssertEqual(summaries.components(separatedBy: "## rlskit \(verb) on ").count, 3, summaries)
        }
    }

    /// Two databases of the same name (here one database given twice) get -2 in the order
    /// given; a file without an extension gets the name at its end.
    func testSameNamesGetANumber() throws {
        let a = try Provisioned.database(prefix: "manyname")
        defer { TestServer.drop(a.name) }
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let twice = a.connectionString.raw + " application_name='second'"
        let r = try CLI.run(
            ["audit", "--database-url", a.connectionString.raw, "--database-url", twice, "--html", tmp + "/report"])
        XCTAssertEqual(r.code, 0, r.output)
        let files = try FileManager.default.contentsOfDirectory(atPath: tmp).sorted()
        XCTAssertEqual(files, ["report.\(a.name)", "report.\(a.name)-2"])
    }
}
