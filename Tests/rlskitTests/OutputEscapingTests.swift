import Foundation
import Postgres
import TestSupport
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Names from SQL (tables, pgTAP descriptions, file names) holding line breaks, workflow
/// commands, terminal escapes and bidi controls: in every text output they show escaped, no
/// line is a workflow command other than rlskit's own annotations, and the structured formats
/// stay valid and give the names back exactly.
final class OutputEscapingTests: XCTestCase {
    /// Each a valid table name (at most 63 bytes).
    static let names = [
        "x\n::add-mask::leak",  // the reported case: a line of its own that masks or errors
        "osc\u{1B}]8;;https://evil.example\u{7}click\u{1B}]8;;\u{7}",  // OSC 8 hyperlink and BEL
        "csi\u{1B}[2J\u{9B}31m",  // clears the screen; C1 CSI
        "exe\u{202E}gnp\u{2066}",  // bidi override and isolate
        "sep\u{2028}::error::u",  // line separator
        "old ##[error]form",  // the runner's old command form, matched anywhere
        "cr\r  ::warning::v",  // carriage return, then blanks the runner skips
    ]

    /// Raw characters a terminal or log must not get (line breaks are kept where they are rlskit's).
    static func unsafe(_ s: String, keeping kept: Set<Unicode.Scalar> = ["\n"]) -> [Unicode.Scalar] {
        s.unicodeScalars.filter { u in
            guard !kept.contains(u) else { return false }
            switch u.value {
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }
    }

    /// The lines a GitHub Actions runner would take as a command that are not rlskit's own
    /// well-formed annotations.
    static func foreignCommands(_ s: String) -> [String] {
        let annotation = #"^::(error|warning|notice) (file=[^,:\n]*,line=\d+,)?title=[^,:\n]*::[^\n]*$"#
        return s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
            let trimmed = String(String.UnicodeScalarView(line.unicodeScalars.drop { $0.properties.isWhitespace }))
            if line.contains("##[") { return true }
            return trimmed.hasPrefix("::") && line.range(of: annotation, options: .regularExpression) == nil
        }
    }

    func assertSafe(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Self.unsafe(text), [], "\(what): \(text.debugDescription)", file: file, line: line)
        XCTAssertEqual(Self.foreignCommands(text), [], "\(what): \(text.debugDescription)", file: file, line: line)
    }

    func testAuditNamesCannotBreakOutOfAnyOutput() throws {
        let db = try TestServer.makeDatabase(prefix: "escape")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        for n in Self.names { try conn.query("create table public.\(try conn.escapeIdentifier(n)) (id int)") }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = db.connectionString.raw

        let text = try CLI.run(["audit", "--database-url", url])
        XCTAssertEqual(text.code, 1, text.output)
        assertSafe(text.output, "text")
        // The audit names it as SQL.display does, a line break as \n.
        XCTAssertTrue(text.stdout.contains(#"table public."x\n::add-mask::leak""#), text.stdout)
        XCTAssertTrue(text.stdout.contains("csi\\u{1b}[2J\\u{9b}31m"), text.stdout)
        XCTAssertTrue(text.stdout.contains("exe\\u{202e}gnp\\u{2066}"), text.stdout)

        let github = try CLI.run(["audit", "--database-url", url, "--format", "github"])
        assertSafe(github.output, "--format github")
        let annotations = github.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        XCTAssertGreaterThanOrEqual(annotations.count, 7, github.stdout)

        let ci = try CLI.run(
            ["audit", "--database-url", url, "--summary", dir + "/s.md"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": dir + "/step.md"])
        assertSafe(ci.output, "text with annotations")
        XCTAssertGreaterThanOrEqual(ci.stdout.split(separator: "\n").filter { $0.hasPrefix("::error title=") }.count, 7)
        for file in ["s.md", "step.md"] {
            let md = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            assertSafe(md, file)
        }

        for format in ["json", "sarif"] {
            let r = try CLI.run(["audit", "--database-url", url, "--format", format])
            XCTAssertEqual(Self.unsafe(r.stdout, keeping: []).filter { $0 != "\n" }, [], format)
            XCTAssertEqual(Self.foreignCommands(r.stdout), [], format)
            let parsed = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
            let names = Self.strings(in: parsed)
            for n in Self.names {
                XCTAssertTrue(names.contains { $0.contains(n) }, "\(format) gives back \(n.debugDescription)")
            }
        }
    }

    /// pgTAP descriptions, diagnostics and a file name: the test report in each format.
    func testTestReportNamesCannotBreakOutOfAnyFormat() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var sql = "begin;\nselect plan(\(Self.names.count * 2));\n"
        for n in Self.names {
            let literal = "'" + n.replacingOccurrences(of: "'", with: "''") + "'"
            sql += "select ok(false, \(literal));\n"
            sql += "select is('a'::text, \(literal), 'compare ' || \(literal));\n"
        }
        sql += "select * from finish();\nrollback;\n"
        let tests = dir + "/t"
        try FileManager.default.createDirectory(atPath: tests, withIntermediateDirectories: true)
        let fileName = "f\u{1B}[2J\n::error::file.sql"
        try sql.write(toFile: tests + "/" + fileName, atomically: true, encoding: .utf8)
        let url = db.connectionString.raw

        let text = try CLI.run(
            ["test", "--database-url", url, tests, "--summary", dir + "/s.md"],
            environment: ["GITHUB_ACTIONS": "true"])
        XCTAssertEqual(text.code, 1, text.output)
        assertSafe(text.output, "text")
        XCTAssertTrue(text.stdout.contains("f\\u{1b}[2J\\u{a}::error::file.sql"), text.stdout)
        XCTAssertGreaterThanOrEqual(text.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }.count, 14)
        assertSafe(try String(contentsOfFile: dir + "/s.md", encoding: .utf8), "summary")

        let tap = try CLI.run(["test", "--database-url", url, tests, "--format", "tap"])
        assertSafe(tap.output, "tap")
        for line in tap.stdout.split(separator: "\n") {
            XCTAssertTrue(
                ["ok ", "not ok ", "#", "TAP version", "1..", "  "].contains { line.hasPrefix($0) }, String(line))
        }

        let json = try CLI.run(["test", "--database-url", url, tests, "--format", "json"])
        XCTAssertEqual(Self.unsafe(json.stdout), [], "json")
        XCTAssertEqual(Self.foreignCommands(json.stdout), [], "json")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let outcomes = try XCTUnwrap(report["outcomes"] as? [[String: Any]])
        XCTAssertEqual(outcomes.count, Self.names.count * 2)
        XCTAssertTrue(outcomes.allSatisfy { ($0["suite"] as? String)?.hasSuffix(fileName) == true }, "\(outcomes)")
        let names = outcomes.compactMap { $0["name"] as? String }
        for n in Self.names.dropFirst() where !n.contains("\r") {
            XCTAssertTrue(
                names.contains { $0.hasSuffix(" - compare " + n) }, "json gives back \(n.debugDescription): \(names)")
        }

        let junit = try CLI.run(["test", "--database-url", url, tests, "--format", "junit"])
        assertSafe(junit.output, "junit")
        let xml = try XMLDocument(data: Data(junit.stdout.utf8))
        let cases = try xml.nodes(forXPath: "//testcase").compactMap {
            ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue
        }
        // The same names as JSON's, but for the C0 controls XML 1.0 cannot hold at all.
        let expected = names.map { n in
            String(
                String.UnicodeScalarView(
                    n.unicodeScalars.map { $0.value < 0x20 && !["\n", "\t", "\r"].contains($0) ? "\u{FFFD}" : $0 }))
        }
        XCTAssertEqual(cases, expected)
    }

    /// The class, not only its cases: nothing in the command or the reports writes to standard
    /// output or error but through Terminal.swift's functions (and so `Output.safe`).
    func testEveryWriteToTheTerminalGoesThroughOnePath() throws {
        let root = Provisioned.repositoryRoot
        let direct = [
            #"(?<![\w.])print\("#, #"Swift\.print"#, #"FileHandle\.standard"#, #"\bfputs\("#, #"\bputs\("#,
            #"write\((STDOUT|STDERR)_FILENO"#, #"write\([12],"#, #"\bdebugPrint\("#, #"\bdump\("#,
        ]
        var found: [String] = []
        for dir in ["Sources/rlskit", "Sources/RLSKit/Report"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: root + "/" + dir)
            where file.hasSuffix(".swift") {
                if file == "Terminal.swift" { continue }
                let text = try String(contentsOfFile: root + "/" + dir + "/" + file, encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    for pattern in direct where line.range(of: pattern, options: .regularExpression) != nil {
                        found.append("\(dir)/\(file):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        XCTAssertEqual(found, [], "write through say, writeOut, printNote, printError or printErrRaw")
    }

    static func strings(in value: Any) -> [String] {
        switch value {
        case let s as String: return [s]
        case let a as [Any]: return a.flatMap { strings(in: $0) }
        case let d as [String: Any]: return d.values.flatMap { strings(in: $0) }
        default: return []
        }
    }
}
