import Foundation
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Random and truncated input to every parser: errors are fine, crashes are not.
final class ParserFuzzTests: XCTestCase {
    var rng = SeededGenerator(seed: 0)

    override func setUp() { rng = .printed(0x726C_736B_6974, name) }

    func randomText(_ alphabet: [Character], maxLength: Int = 80) -> String {
        String((0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    /// Every prefix of the real inputs (cut at each UTF-8 scalar), and random mutations of them.
    func corpus() throws -> [(path: String, text: String)] {
        let root = Provisioned.repositoryRoot
        var files: [(String, String)] = []
        for dir in ["sql/tests", "sql/migrations", "Tests/Fixtures/pgtap"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + dir)) ?? [] {
                if let t = try? String(contentsOfFile: root + "/" + dir + "/" + name, encoding: .utf8) {
                    files.append((dir + "/" + name, t))
                }
            }
        }
        XCTAssertGreaterThan(files.count, 5)
        return files
    }

    func variants(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var out: [String] = []
        let step = max(1, scalars.count / 60)
        for cut in stride(from: 0, to: scalars.count, by: step) {
            out.append(String(String.UnicodeScalarView(scalars[..<cut])))
        }
        for _ in 0..<20 where !scalars.isEmpty {
            var s = scalars
            for _ in 0..<3 {
                let i = Int.random(in: 0..<s.count, using: &rng)
                s[i] = [
                    "\n", "'", "$", "\"", ";", "{", "\\", "#", ":", " ", "é", "\u{0}", "€", "\u{00A0}", "-", "*", "/",
                    "E", "&", "\r",
                ].randomElement(using: &rng)!
            }
            out.append(String(String.UnicodeScalarView(s)))
        }
        return out
    }

    func testHarnessFilesScannerAndTAPNeverCrash() throws {
        for (path, text) in try corpus() {
            for v in variants(text) {
                _ = SQLScanner.statements(in: v)
                _ = try? AccessFile.parse(v, path: path)
                _ = try? ScenarioFile.parse(v, path: path)
                _ = TAPParser.parse(
                    v.split(separator: "\n", omittingEmptySubsequences: false).map { TAPLine(String($0)) })
                _ = PsqlVariables.substitute(v, ["x": "1", "name": "o'brien"])
            }
        }
        let tapAlphabet = Array("ok not 0123456789 -#\n.SKIPTODO Bail out!")
        for _ in 0..<3000 {
            _ = TAPParser.parse(
                randomText(tapAlphabet, maxLength: 200).split(separator: "\n").map { TAPLine(String($0)) })
        }
    }

    func testPsqlScriptsFromRandomFilesNeverCrash() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let alphabet = Array("\\ set i ir echo x :'\"; select 1 $$ \n -- /* */ plan ok")
        for n in 0..<300 {
            let path = dir + "/f\(n).sql"
            try randomText(alphabet, maxLength: 120).write(toFile: path, atomically: true, encoding: .utf8)
            _ = PsqlScript.load(path: path)
        }
        // A file that includes itself must stop, not recurse forever.
        try "\\i self.sql\nselect 1;".write(toFile: dir + "/self.sql", atomically: true, encoding: .utf8)
        _ = PsqlScript.load(path: dir + "/self.sql")
    }

    /// Names as rlskit quotes them read back through the access file parser as the same
    /// names: keywords, case, quotes, spaces, `#`, `;`, non-ASCII.
    func testQuotedNamesReadBackFromAccessFiles() throws {
        let alphabet = Array("abz_09AZ \"';#.$é-")
        var names =
            Array(SQL.keywords) + [
                "unique", "current_user", "window", "left", "full", "Owner", "a b", "a\"b", "#x", "x;y", "é",
            ]
        for _ in 0..<300 { names.append(randomText(alphabet, maxLength: 8)) }
        for n in names where !n.isEmpty {
            let text = "table \(SQL.qualified("public", n))\n  owner \(SQL.ident(n))\n  read owner\n  write owner\n"
            let file = try AccessFile.parse(text, path: "n.rls")
            XCTAssertEqual(file.tables.first?.name, n, text)
            XCTAssertEqual(file.tables.first?.owner, n, text)
        }
    }

    /// CRLF line ends and a leading byte order mark never change what a file means: the same
    /// parse, the same mistake on the same line, the same no-transaction marker.
    func testLineEndingsAndByteOrderMarkNeverChangeTheMeaning() throws {
        // Test users get fresh ids on every parse: compare everything else.
        // (and the per-setting locations are a dictionary, printed in any order; a token's expiry
        // is the clock's, which may tick between two parses).
        let ids = try NSRegularExpression(
            pattern:
                "[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}|-[0-9a-f]{8}@|settings: \\[[^\\]]*\\]|expires: [0-9]+"
        )
        func describe<T>(_ body: () throws -> T) -> String {
            let text: String
            do { text = "ok \(try body())" } catch { text = "error \(error)" }
            return ids.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "ID")
        }
        func crlf(_ s: String) -> String { s.replacingOccurrences(of: "\n", with: "\r\n") }
        var checked = 0
        for (path, text) in try corpus() {
            for (n, v) in ([text] + variants(text)).enumerated() where n % 3 == 0 && !v.contains("\r") {
                for other in [crlf(v), "\u{FEFF}" + v, "\u{FEFF}" + crlf(v)] {
                    XCTAssertEqual(
                        describe { try AccessFile.parse(other, path: path) },
                        describe { try AccessFile.parse(v, path: path) }, path)
                    XCTAssertEqual(
                        describe { try ScenarioFile.parse(other, path: path) },
                        describe { try ScenarioFile.parse(v, path: path) }, path)
                    XCTAssertEqual(
                        describe { try Baseline.parse(other, file: path) },
                        describe { try Baseline.parse(v, file: path) }, path)
                    XCTAssertEqual(
                        describe { try LockFile.parse(other, file: path) },
                        describe { try LockFile.parse(v, file: path) }, path)
                    XCTAssertEqual(
                        SQLFile(path: path, contents: other).runsOutsideTransaction,
                        SQLFile(path: path, contents: v).runsOutsideTransaction, path)
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 100)
        let marked = "-- rlskit:no-transaction\ncreate index concurrently i on t (x);\n"
        XCTAssertTrue(SQLFile(path: "a.sql", contents: crlf(marked)).runsOutsideTransaction)
        XCTAssertTrue(SQLFile(path: "a.sql", contents: "\u{FEFF}" + marked).runsOutsideTransaction)
        XCTAssertEqual(SQLFile(path: "a.sql", contents: "\u{FEFF}select 1;").contents, "select 1;")
        XCTAssertEqual(
            TextFile.decode(Data([0xEF, 0xBB, 0xBF, 0x61, 0x0D, 0x0A, 0x62])).map(TextFile.lines), ["a", "b"])
    }
}
