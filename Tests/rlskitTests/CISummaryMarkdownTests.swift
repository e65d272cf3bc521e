import Foundation
import Postgres
import RLSKit
import TestSupport
import XCTest

/// The step summary rendered by cmark-gfm (the renderer GitHub's Markdown is built on, with
/// GitHub's extensions): names with backticks, pipes, line breaks, HTML and Markdown keep each
/// table row one row of the right cells, show as written, and make no link, image or markup.
final class CISummaryMarkdownTests: XCTestCase {
    static func cmark() throws -> String { try Tools.require("cmark-gfm", for: "the step summary's rendering tests") }

    override func setUpWithError() throws {
        _ = try Self.cmark()
    }

    static func html(_ markdown: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try cmark())
        p.arguments = ["-e", "table", "-e", "autolink", "-e", "strikethrough", "-e", "tagfilter"]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data(markdown.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The cells of each body row of the table whose header has `header` in it.
    static func rows(_ html: String, header: String) throws -> [[String]] {
        let table = try XCTUnwrap(
            html.components(separatedBy: "<table>").first { $0.contains("<th>\(header)</th>") }, html)
        let body = try XCTUnwrap(table.components(separatedBy: "<tbody>").last)
        return body.components(separatedBy: "<tr>").dropFirst().map { row in
            row.components(separatedBy: "<td>").dropFirst().map { cell in
                String(cell.components(separatedBy: "</td>")[0])
            }
        }
    }

    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func assertNoMarkup(_ html: String, file: StaticString = #filePath, line: UInt = #line) {
        for tag in ["<a ", "<img", "<script", "<em>", "<del>", "<h1", "<h3", "<br", "<iframe"] {
            XCTAssertFalse(html.contains(tag), "\(tag) in \(html)", file: file, line: line)
        }
        // rlskit's own: the heading and the bold "checks:" or "audit:".
        XCTAssertEqual(html.components(separatedBy: "<h2>").count, 2, html, file: file, line: line)
        XCTAssertEqual(html.components(separatedBy: "<strong>").count, 2, html, file: file, line: line)
    }

    func testFailingChecksKeepTheirRowsAndShowAsWritten() throws {
        let suites = [
            "public.a`b",  // the reported case: a backtick that would close the code span
            "public.``x``|y",  // a longer run, and a pipe that would end the cell
            "`edge`",  // backticks at both ends
            "public.t\n## injected\n| a | b |",  // line breaks that would start a heading and a row
        ]
        let names = [
            "[click](https://evil.example) ![p](https://evil.example/p.png)",
            "*bold* __strong__ ~~struck~~ $x$ \\| www.evil.example/x",
            "<img src=x onerror=alert(1)> <script>alert(1)</script>",
            "line one\nline two | https://evil.example `code`",
        ]
        var report = TestReport()
        for (i, suite) in suites.enumerated() {
            var o = TestOutcome(suite: suite, name: names[i], status: .failed, message: names[(i + 1) % 4])
            o.actor = "A`|<b>"
            report.outcomes.append(o)
        }
        let md = CISummary.markdown(command: "test", verdict: "failed", tests: report, audit: nil)
        let html = try Self.html(md)
        Self.assertNoMarkup(html)
        let rows = try Self.rows(html, header: "table or file")
        XCTAssertEqual(rows.count, suites.count, html)
        for (i, row) in rows.enumerated() {
            XCTAssertEqual(row.count, 5, "\(row)")
            guard row.count == 5 else { continue }
            let suite = suites[i].replacingOccurrences(of: "\n", with: "\\u{a}")
            XCTAssertEqual(row[0], "<code>\(Self.escaped(suite))</code>", html)
            XCTAssertEqual(row[1], "<code>A`|&lt;b&gt;</code>", html)
            XCTAssertEqual(row[2], Self.escaped(names[i].replacingOccurrences(of: "\n", with: " ")), html)
            XCTAssertEqual(row[3], Self.escaped(names[(i + 1) % 4].replacingOccurrences(of: "\n", with: " ")), html)
        }
    }

    /// A real audit of tables so named: the findings table, object by object.
    func testAuditFindingsKeepTheirRows() throws {
        let db = try TestServer.makeDatabase(prefix: "mdsum")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let tables = ["a`b", "c``d|e", "f\ng | h", "i<img src=x>[j](https://evil.example)"]
        for t in tables { try conn.query("create table public.\(try conn.escapeIdentifier(t)) (id int)") }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(["audit", "--database-url", db.connectionString.raw, "--summary", dir + "/s.md"])
        XCTAssertEqual(r.code, 1, r.output)
        let html = try Self.html(try String(contentsOfFile: dir + "/s.md", encoding: .utf8))
        Self.assertNoMarkup(html)
        let rows = try Self.rows(html, header: "object")
        XCTAssertEqual(rows.count, tables.count, html)
        XCTAssertTrue(rows.allSatisfy { $0.count == 4 }, "\(rows)")
        for t in tables {
            // The object as the audit names it: SQL's quoting, a line break as \n.
            let shown = "table public.\"" + t.replacingOccurrences(of: "\n", with: "\\n") + "\""
            XCTAssertTrue(
                rows.contains { $0.count == 4 && $0[1] == "<code>\(Self.escaped(shown))</code>" }, "\(shown): \(html)")
        }
    }
}
