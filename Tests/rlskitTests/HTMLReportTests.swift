import Foundation
@_spi(CLI) import RLSKit
import TestSupport
import XCTest

/// The HTML report in a real browser: the rendered DOM, a screenshot, print, and its speed.
final class HTMLReportTests: XCTestCase {
    override func setUpWithError() throws {
        _ = try Browser.require()
    }

    /// The built-in schema with one deliberate hole (anyone signed in updates any post): the
    /// grid shows the leak, a click (the cell's #c link) shows its SQL, policies and file:line.
    func testCheckReportShowsTheLeakAndItsDetails() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let root = Provisioned.repositoryRoot
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        for f in try FileManager.default.contentsOfDirectory(atPath: root + "/sql/migrations") {
            try FileManager.default.copyItem(atPath: root + "/sql/migrations/" + f, toPath: tmp + "/m/" + f)
        }
        try "create policy \"anyone <b>updates</b>\" on public.posts for update to authenticated using (true);\n"
            .write(toFile: tmp + "/m/0099_hole.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--tests", root + "/sql/tests", "--html", tmp + "/r.html"],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        let html = try String(contentsOfFile: tmp + "/r.html", encoding: .utf8)
        // Self-contained: nothing fetched.
        // Links to the page's own cells (the failures list) are not outside it.
        let outside = html.replacingOccurrences(of: " href=\"#", with: "")
        for external in ["<link", " src=", " href=", "@import", "url(", "<iframe", "<img", "<object"] {
            XCTAssertFalse(outside.contains(external), "the report refers to something outside it: \(external)")
        }
        XCTAssertFalse(html.contains("<b>updates</b>"), "policy names are escaped")
        let leak = try XCTUnwrap(
            html.range(
                of: #"data-i="(\d+)" class="c-leak">B&#39;s row|data-i="(\d+)" class="c-leak">B's row"#,
                options: .regularExpression))
        let index = String(html[leak].split(separator: "\"")[1])

        let dom = try Browser.run(["--dump-dom"], url: "file://\(tmp)/r.html#c\(index)").output
        XCTAssertTrue(dom.contains("<h1>rlskit check: <span class=\"v-bad\">failed</span></h1>"), dom)
        XCTAssertTrue(dom.contains("<caption>public.posts <small>"), dom)
        XCTAssertTrue(dom.contains("<th scope=\"col\">hand-over</th>"), dom)
        XCTAssertTrue(dom.contains("<th scope=\"col\">overwrite</th>"), dom)
        XCTAssertTrue(dom.contains("<th scope=\"row\">anon</th>"), dom)
        XCTAssertTrue(
            dom.contains("class=\"c-leak hit\">B's row: ✗ leak</button>"), "the opened cell is marked: \(dom)")
        XCTAssertTrue(dom.contains("class=\"c-denied\">A's row: ✓ denied</button>"), dom)
        // The opened detail: the check, its SQL, expected vs got, the policies on update, file:line.
        let detail = try XCTUnwrap(dom.range(of: "<aside id=\"detail\"")).lowerBound
        let panel = String(dom[detail...])
        XCTAssertTrue(
            panel.hasPrefix("<aside id=\"detail\" aria-live=\"polite\" aria-labelledby=\"detail-title\" data-i="), panel
        )
        XCTAssertTrue(panel.contains("public.posts: A updates B's row"), panel)
        XCTAssertTrue(panel.contains("LEAK: allowed, should be denied"), panel)
        XCTAssertTrue(panel.contains("<dt>expected</dt><dd>nothing written"), panel)
        XCTAssertTrue(panel.contains("<pre>update public.posts set"), panel)
        XCTAssertTrue(
            panel.contains("anyone &lt;b&gt;updates&lt;/b&gt; (for update to authenticated) using (true)"), panel)
        XCTAssertTrue(panel.contains("<dt>declared at</dt><dd>\(root)/sql/tests/access.rls:"), panel)
        XCTAssertTrue(dom.contains("<dt>apply</dt><dd>stand-in installed; 10 migrations applied"), dom)

        let shot = tmp + "/report.png"
        _ = try Browser.run(
            ["--hide-scrollbars", "--window-size=1280,1000", "--screenshot=\(shot)"], url: "file://\(tmp)/r.html")
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertGreaterThan(png.count, 20_000, "a rendered page, not a blank one")
        // Light and dark follow the system: the page background in each.
        let dark = tmp + "/dark.png"
        _ = try Browser.run(
            ["--force-dark-mode", "--window-size=800,600", "--screenshot=\(dark)"], url: "file://\(tmp)/r.html")
        XCTAssertEqual(try Self.pixel(shot, 5, 5), "255 255 255")
        XCTAssertEqual(try Self.pixel(dark, 5, 5), "22 24 27")
        _ = try Browser.run(
            ["--print-to-pdf=\(tmp)/report.pdf", "--no-pdf-header-footer"], url: "file://\(tmp)/r.html")
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: tmp + "/report.pdf")).starts(with: Data("%PDF".utf8)))
        if let keep = ProcessInfo.processInfo.environment["RLSKIT_KEEP_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
    }

    /// Policy names (untrusted SQL) that look like script markup sit in the page's JSON data:
    /// none ends or swallows the page's script (it still opens the #c cell), the data block has
    /// no "<" at all, and the panel shows each name as written.
    func testScriptMarkupInNamesCannotStopThePageScript() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let root = Provisioned.repositoryRoot
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        for f in try FileManager.default.contentsOfDirectory(atPath: root + "/sql/migrations") {
            try FileManager.default.copyItem(atPath: root + "/sql/migrations/" + f, toPath: tmp + "/m/" + f)
        }
        let names = [
            "<!--<script>", "</script><script>document.title='pwned'</script>", "<ScRiPt>x", "--><!-- </SCRIPT >",
        ]
        var sql = "create policy \"anyone updates\" on public.posts for update to authenticated using (true);\n"
        for n in names {
            sql +=
                "create policy \"\(n.replacingOccurrences(of: "\"", with: "\"\""))\" on public.posts for update to authenticated using (false);\n"
        }
        try sql.write(toFile: tmp + "/m/0099_names.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--tests", root + "/sql/tests", "--html", tmp + "/r.html"],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        let html = try String(contentsOfFile: tmp + "/r.html", encoding: .utf8)
        XCTAssertNotNil(
            html.range(
                of: #"<script type="application/json" id="checks">[^<]*</script>\n<script>"#,
                options: .regularExpression),
            "no markup inside the data block")
        let leak = try XCTUnwrap(html.range(of: #"data-i="(\d+)" class="c-leak""#, options: .regularExpression))
        let index = String(html[leak].split(separator: "\"")[1])

        let dom = try Browser.run(["--dump-dom"], url: "file://\(tmp)/r.html#c\(index)").output
        XCTAssertEqual(dom.components(separatedBy: "<script").count - 1, 2, "the data block and the page's script")
        XCTAssertTrue(dom.contains("<title>rlskit check: failed</title>"), "no injected script ran")
        let panel = String(dom[try XCTUnwrap(dom.range(of: "<aside id=\"detail\"")).lowerBound...])
        XCTAssertTrue(panel.contains("<h2 id=\"detail-title\" tabindex=\"-1\">public.posts: "), panel)
        for n in names {
            let shown = n.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            XCTAssertTrue(
                panel.contains("<li>\(shown) (for update to authenticated) using (false)</li>"), "\(n): \(panel)")
        }
    }

    /// One pixel's RGB, read by a small PNG reader (Tests/Scripts/png_pixel.py).
    static func pixel(_ png: String, _ x: Int, _ y: Int) throws -> String {
        let out = try Python.run(["Tests/Scripts/png_pixel.py", png, "\(x)", "\(y)"])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// 2,000 tables: the browser loads the report within twice the time of a plain table with
    /// the same cells, measured in the same run.
    func testTwoThousandTablesLoadAboutAsFastAsAPlainTable() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        var outcomes: [TestOutcome] = []
        let checks: [(String, String, String, Bool)] = [
            ("A", "reads own row", "select", true), ("A", "reads B's row", "select", false),
            ("A", "inserts own row", "insert", true), ("A", "inserts a row owned by B", "insert", false),
            ("A", "updates own row", "update", true), ("A", "updates B's row", "update", false),
            ("A", "hands own row over to B", "update", false), ("A", "deletes own row", "delete", true),
            ("A", "deletes B's row", "delete", false), ("B", "reads A's row", "select", false),
            ("anon", "reads A's row", "select", false), ("anon", "inserts a row owned by A", "insert", false),
            ("anon", "updates A's row", "update", false), ("anon", "deletes A's row", "delete", false),
        ]
        for t in 0..<2000 {
            for (actor, what, op, allowed) in checks {
                var o = TestOutcome(
                    suite: "public.table_\(t)", name: "\(actor) \(what)",
                    status: t == 7 && !allowed ? .failed : .passed,
                    location: SourceLocation(file: "sql/tests/access.rls", line: t * 4 + 1),
                    sql:
                        "select count(*) from public.table_\(t) where owner_id = '00000000-0000-0000-0000-000000000001'",
                    actor: actor)
                o.operation = op
                o.intendedAllowed = allowed
                o.expected = allowed ? "the row is visible" : "no row visible (0 rows, or denied)"
                o.got = "1 row"
                outcomes.append(o)
            }
        }
        var forged = TestOutcome(
            suite: "public.table_0", name: "M reads B's row", status: .passed, actor: "M (user_metadata {\"role\": 1})")
        forged.intendedAllowed = false
        outcomes.append(forged)
        let report = HTMLReport(
            command: "check", verdict: "failed", facts: [("database", "synthetic")],
            tests: TestReport(outcomes: outcomes), audit: nil)
        let started = Date()
        let html = report.render()
        let renderSeconds = Date().timeIntervalSince(started)
        try html.write(toFile: tmp + "/big.html", atomically: true, encoding: .utf8)
        var plain = "<!doctype html><html><head><meta charset=\"utf-8\"><title>plain</title></head><body><table>"
        for o in outcomes {
            plain += "<tr><td>\(o.suite)</td><td>\(o.actor!)</td><td>\(o.name)</td><td>\(o.status)</td></tr>"
        }
        plain += "</table></body></html>\n"
        try plain.write(toFile: tmp + "/plain.html", atomically: true, encoding: .utf8)

        let plainSeconds = try Browser.run(["--dump-dom"], url: "file://\(tmp)/plain.html").seconds
        let (dom, reportSeconds) = try Browser.run(["--dump-dom"], url: "file://\(tmp)/big.html")
        XCTAssertTrue(dom.contains("<caption>public.table_1999 <small>"), "the last table is rendered")
        XCTAssertTrue(
            html.contains("<th scope=\"row\">M (user_metadata {&quot;role&quot;: 1})</th><td>"),
            "the forged-claims user has its own row in the grid")
        print(
            "2,000 tables, \(outcomes.count) checks: report \(html.utf8.count / 1024) KB rendered in \(String(format: "%.2f", renderSeconds)) s, browser \(String(format: "%.2f", reportSeconds)) s; plain table \(plain.utf8.count / 1024) KB, browser \(String(format: "%.2f", plainSeconds)) s"
        )
        // Side by side with a plain table in the same run; the render time is printed, not asserted
        // (a busy machine makes any fixed limit flaky; bench/ measures speed).
        XCTAssertLessThan(reportSeconds, plainSeconds * 2 + 0.5, "report \(reportSeconds) s vs plain \(plainSeconds) s")
    }
}

/// `--html` on `test` and `audit` (the page itself is checked in a browser above).
final class HTMLReportCommandTests: XCTestCase {
    func testTestAndAuditWriteTheReport() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let root = Provisioned.repositoryRoot
        let t = try CLI.run(["test", root + "/sql/tests", "--html", tmp + "/t.html"], environment: ["TMPDIR": tmp])
        XCTAssertEqual(t.code, 0, t.output)
        let test = try String(contentsOfFile: tmp + "/t.html", encoding: .utf8)
        XCTAssertTrue(test.contains("<h1>rlskit test: <span class=\"v-ok\">passed</span></h1>"), test)
        XCTAssertTrue(test.contains("<caption>bucket avatars <small>"), test)
        XCTAssertTrue(test.contains("<h2 id=\"other\">Other checks</h2>"), test)
        XCTAssertFalse(test.contains("\" class=\"c-leak\""), "the built-in schema has no leak")

        let db = try StandIn.makeDatabase(prefix: "htmlaudit")
        defer { TestServer.drop(db.name) }
        try StandIn.apply(file: "Tests/Fixtures/seed000-as-written.sql", db.conn)
        let a = try CLI.run(["audit", "--database-url", db.connectionString.raw, "--html", tmp + "/a.html"])
        XCTAssertEqual(a.code, 1, a.output)
        let audit = try String(contentsOfFile: tmp + "/a.html", encoding: .utf8)
        XCTAssertTrue(audit.contains("<h2 id=\"audit\">Audit findings</h2>"), audit)
        XCTAssertTrue(audit.contains("<td>storage_write_without_owner_check</td>"), audit)
        XCTAssertFalse(audit.contains("Who can do what"), audit)
        XCTAssertFalse(audit.contains(db.connectionString.raw), "no connection string in the report")
    }
}
