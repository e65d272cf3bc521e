import Foundation
import RLSKit
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

final class TestReportWriterTests: XCTestCase {
    let report = TestReport(
        outcomes: [
            TestOutcome(
                suite: "public.profiles", name: "A reads own row", status: .passed, actor: "user A", duration: 0.001),
            TestOutcome(
                suite: "public.profiles", name: "A cannot update B's row <&>", status: .failed,
                message: "expected 0 rows affected\nactual 1",
                location: SourceLocation(file: "sql/tests/access.rls", line: 3),
                sql: "update public.profiles set full_name = 'x' where id = $1", actor: "user A"),
            TestOutcome(suite: "t.sql", name: "later # thing", status: .todo, message: "not yet"),
            TestOutcome(suite: "t.sql", name: "skipped one", status: .skipped, message: "no pgtap"),
        ], notes: ["coverage: 1 of 2 tables"])

    func testTAP() {
        let tap = TestReportWriter.render(report, format: .tap)
        let lines = tap.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "TAP version 13")
        XCTAssertEqual(lines[1], "1..4")
        XCTAssertEqual(lines[2], "ok 1 - public.profiles: [user A] A reads own row")
        XCTAssertEqual(lines[3], "not ok 2 - public.profiles: [user A] A cannot update B's row <&>")
        XCTAssertTrue(tap.contains("  message: \"expected 0 rows affected\\nactual 1\""))
        XCTAssertTrue(tap.contains("ok 3 - t.sql: later \\# thing # TODO not yet"))
        XCTAssertTrue(tap.contains("ok 4 - t.sql: skipped one # SKIP no pgtap"))
    }

    func testJUnitIsWellFormedXML() throws {
        let xml = TestReportWriter.render(report, format: .junit)
        let doc = try XMLDocument(xmlString: xml)
        let cases = try doc.nodes(forXPath: "//testcase")
        XCTAssertEqual(cases.count, 4)
        XCTAssertEqual(try doc.nodes(forXPath: "//failure").count, 1)
        XCTAssertEqual(try doc.nodes(forXPath: "//skipped").count, 2)
        XCTAssertTrue(xml.contains("A cannot update B&apos;s row &lt;&amp;&gt;"))
    }

    func testJSONRoundTrips() throws {
        let json = TestReportWriter.render(report, format: .json)
        let obj = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        XCTAssertEqual(obj["failed"] as? Int, 1)
        XCTAssertEqual(obj["passed"] as? Int, 1)
        let outcomes = obj["outcomes"] as! [[String: Any]]
        XCTAssertEqual(outcomes[1]["line"] as? Int, 3)
        XCTAssertEqual(outcomes[1]["status"] as? String, "failed")
    }

    func testTextNamesFailuresAndSummarises() {
        let text = TestReportWriter.render(report, format: .text, color: false)
        XCTAssertTrue(text.contains("public.profiles  1 of 2 failed"))
        XCTAssertTrue(text.contains("✗ [user A] A cannot update B's row <&>  (sql/tests/access.rls:3)"))
        XCTAssertTrue(text.contains("      expected 0 rows affected\n      actual 1"))
        XCTAssertTrue(text.hasSuffix("1 passed, 1 failed, 1 skipped, 1 todo\n"))
        XCTAssertFalse(text.contains("\u{1B}["))
    }
}
