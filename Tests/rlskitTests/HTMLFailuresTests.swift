import Foundation
import TestSupport
import XCTest

/// The HTML report of a run with a few failures of each kind lists them first: leaks (allowed,
/// should be denied), lockouts (denied, should be allowed), then the rest, each linking to its
/// cell; the page's screenshot is docs/report.png (RLSKIT_KEEP_SCREENSHOT=docs/report.png).
final class HTMLFailuresTests: XCTestCase {
    override func setUpWithError() throws {
        _ = try Browser.require()
    }

    /// The built-in schema with four holes: anyone signed in updates any post (a leak), the
    /// owner's delete policy gone (a lockout), a function that deletes any post by id (a leak
    /// through a function), and profiles hidden from anon (lockouts, and a scenario step).
    static let holes = """
        create policy "anyone updates" on public.posts for update to authenticated using (true);
        drop policy "Users delete their own posts" on public.posts;
        create function public.remove_post(post_id bigint) returns void language sql security definer
          set search_path = '' as $$ delete from public.posts where id = post_id $$;
        grant execute on function public.remove_post(bigint) to authenticated;
        alter policy "Public profiles are viewable by everyone." on public.profiles to authenticated;

        """

    /// A scenario step that counts what anon sees of the profiles, which the holes hide.
    static let scenario = """
        scenario the public sees every profile
          user alice
          user bob
          as anon: select count(*) from public.profiles
            expect value 2

        """

    func testFailuresComeFirstSplitAndLinked() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let root = Provisioned.repositoryRoot
        for d in ["/m", "/t"] {
            try FileManager.default.createDirectory(atPath: tmp + d, withIntermediateDirectories: true)
        }
        for f in try FileManager.default.contentsOfDirectory(atPath: root + "/sql/migrations") {
            try FileManager.default.copyItem(atPath: root + "/sql/migrations/" + f, toPath: tmp + "/m/" + f)
        }
        try FileManager.default.copyItem(atPath: root + "/sql/tests/access.rls", toPath: tmp + "/t/access.rls")
        try Self.holes.write(toFile: tmp + "/m/0099_holes.sql", atomically: true, encoding: .utf8)
        try Self.scenario.write(toFile: tmp + "/t/profiles.scenario", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", "m", "--tests", "t", "--html", "r.html"],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        let html = try String(contentsOfFile: tmp + "/r.html", encoding: .utf8)
        let mainStart = try XCTUnwrap(html.range(of: "<main>\n")).lowerBound
        let main = String(html[mainStart...])
        XCTAssertTrue(
            main.hasPrefix("<main>\n<section aria-labelledby=\"failures\""), "failures first: \(main.prefix(300))")
        let end = try XCTUnwrap(main.range(of: "</section>")).upperBound
        let failures = String(main[..<end])

        // Every failed check of the run is listed once, under the heading of its kind.
        let count = try XCTUnwrap(Int(try XCTUnwrap(Self.first(#"<h2 id="failures">(\d+) failed</h2>"#, in: failures))))
        let links = Self.all(##"<li><a href="#(c\d+|t\d+)">"##, in: failures)
        XCTAssertEqual(links.count, count, failures)
        XCTAssertEqual(Set(links).count, links.count, "each once")
        let stdoutFailed = try XCTUnwrap(Self.first(#"test +\d+ passed, (\d+) failed"#, in: r.stdout))
        XCTAssertEqual(count, Int(stdoutFailed), r.stdout)

        func section(_ id: String) throws -> String {
            let start = try XCTUnwrap(failures.range(of: "<h3 id=\"f-\(id)\">"), id).lowerBound
            let rest = failures[start...]
            return String(rest[..<(rest.range(of: "</ul>")?.upperBound ?? rest.endIndex)])
        }
        let leaks = try section("leaks")
        let lockouts = try section("lockouts")
        let others = try section("errors")
        XCTAssertTrue(leaks.hasPrefix("<h3 id=\"f-leaks\">Leaks: allowed, should be denied ("), leaks)
        XCTAssertTrue(
            leaks.contains("public.posts · as A: A updates B&#39;s row</a>")
                || leaks.contains("public.posts · as A: A updates B's row</a>"), leaks)
        XCTAssertTrue(leaks.contains("public.remove_post(bigint) called as B</a>"), "a function's leak: \(leaks)")
        XCTAssertTrue(lockouts.hasPrefix("<h3 id=\"f-lockouts\">Lockouts: denied, should be allowed ("), lockouts)
        XCTAssertTrue(lockouts.contains("public.posts · as A: A deletes own row</a>"), lockouts)
        XCTAssertTrue(
            lockouts.contains("expected: the write goes through (at least 1 row); got: 0 rows affected"), lockouts)
        XCTAssertTrue(others.contains("the public sees every profile"), "the scenario's step: \(others)")
        XCTAssertTrue(others.contains("expected: value 2; got: value 0"), others)
        XCTAssertTrue(others.contains("<small>t/profiles.scenario:4</small>"), "where it was declared: \(others)")
        XCTAssertTrue(
            leaks.contains("called as B</a> — expected: no write (not declared, so callable by owner: "), leaks)

        // Each link opens its own cell: the button with that index, of the kind it is listed as.
        for (kind, text) in [("leak", leaks), ("lockout", lockouts)] {
            for anchor in Self.all(##"<li><a href="#c(\d+)">[^<]*</a>"##, in: text) {
                let button = try XCTUnwrap(
                    Self.first(#"<button data-i="\#(anchor)" class="([a-z-]+)""#, in: html), "no cell for c\(anchor)")
                XCTAssertEqual(button, "c-" + kind, "c\(anchor)")
            }
        }
        let lockout = try XCTUnwrap(
            Self.first(##"<li><a href="#c(\d+)">public.posts · as A: A deletes own row"##, in: lockouts))
        let dom = try Browser.run(["--dump-dom"], url: "file://\(tmp)/r.html#c\(lockout)").output
        let panel = String(dom[try XCTUnwrap(dom.range(of: "<aside id=\"detail\"")).lowerBound...])
        XCTAssertTrue(panel.contains("public.posts: A deletes own row"), panel)
        XCTAssertTrue(panel.contains("LOCKOUT: denied, should be allowed"), panel)
        XCTAssertTrue(dom.contains("<button data-i=\"\(lockout)\" class=\"c-lockout hit\">"), "the cell is marked")

        let shot = tmp + "/report.png"
        _ = try Browser.run(
            ["--hide-scrollbars", "--window-size=1280,1100", "--screenshot=\(shot)"], url: "file://\(tmp)/r.html")
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        if let keep = ProcessInfo.processInfo.environment["RLSKIT_KEEP_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
    }

    static func all(_ pattern: String, in text: String) -> [String] {
        let re = try! NSRegularExpression(pattern: pattern)
        let whole = NSRange(text.startIndex..., in: text)
        return re.matches(in: text, range: whole).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func first(_ pattern: String, in text: String) -> String? { all(pattern, in: text).first }
}
