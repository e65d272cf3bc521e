import Foundation
import TestSupport
import XCTest

@testable import RLSKit

final class TOMLTests: XCTestCase {
    func parse(_ text: String) throws(InputError) -> TOMLTable { try TOMLReader.parse(text, file: "config.toml") }

    func error(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch { return error.description }
    }

    func testValuesOfEveryKind() throws {
        let t = try parse(
            #"""
            # a comment
            title = "rlskit"   # trailing comment
            literal = 'C:\path\no escapes'
            escaped = "tab\tquote\" \u00e9 \U0001F600"
            multi = """
            first
            second"""
            folded = """one \
                     two"""
            raw = '''
            keep \n as is'''
            int = 1_000
            hex = 0xff
            neg = -42
            float = 3.5e2
            yes = true
            no = false
            date = 2026-05-30
            list = [ "a", 'b',
              # comment inside
              "c", ]
            nested = [[1, 2], ["x"]]
            inline = { enabled = true, uri = "pg-functions://postgres/public/hook" }
            "quoted key" = 1
            site."dotted.part".name = "x"
            """#)
        XCTAssertEqual(t["title"], .string("rlskit"))
        XCTAssertEqual(t["literal"], .string(#"C:\path\no escapes"#))
        XCTAssertEqual(t["escaped"], .string("tab\tquote\" é 😀"))
        XCTAssertEqual(t["multi"], .string("first\nsecond"))
        XCTAssertEqual(t["folded"], .string("one two"))
        XCTAssertEqual(t["raw"], .string(#"keep \n as is"#))
        XCTAssertEqual(t["int"], .integer(1000))
        XCTAssertEqual(t["hex"], .integer(255))
        XCTAssertEqual(t["neg"], .integer(-42))
        XCTAssertEqual(t["float"], .float(350))
        XCTAssertEqual(t["yes"], .bool(true))
        XCTAssertEqual(t["no"], .bool(false))
        XCTAssertEqual(t["date"], .string("2026-05-30"))
        XCTAssertEqual(t["list"], .array([.string("a"), .string("b"), .string("c")]))
        XCTAssertEqual(t["nested"], .array([.array([.integer(1), .integer(2)]), .array([.string("x")])]))
        XCTAssertEqual(t.value(at: "inline.uri"), .string("pg-functions://postgres/public/hook"))
        XCTAssertEqual(t["quoted key"], .integer(1))
        XCTAssertEqual(t["site"]?.table?["dotted.part"]?.table?["name"], .string("x"))
        XCTAssertEqual(t.keys.first, "title")
        XCTAssertEqual(t.line(of: "int"), 12)
    }

    func testTablesAndArraysOfTables() throws {
        let t = try parse(
            """
            [api]
            enabled = true
            schemas = ["public", "app"]

            [db.seed]
            sql_paths = ['./seed.sql']

            [storage.buckets.avatars]
            public = true
            [storage.buckets."team files"]
            public = false

            [[remotes]]
            name = "a"
            [[remotes]]
            name = "b"
            [remotes.extra]
            x = 1
            """)
        XCTAssertEqual(t.value(at: "api.schemas"), .array([.string("public"), .string("app")]))
        XCTAssertEqual(t.value(at: "db.seed")?.table?["sql_paths"], .array([.string("./seed.sql")]))
        XCTAssertEqual(t.value(at: "storage.buckets")?.table?.keys, ["avatars", "team files"])
        let remotes = try XCTUnwrap(t["remotes"]?.array)
        XCTAssertEqual(remotes.count, 2)
        XCTAssertEqual(remotes[1].table?["name"], .string("b"))
        XCTAssertEqual(remotes[1].table?.value(at: "extra.x"), .integer(1))
    }

    func testMistakesNameTheLine() {
        XCTAssertEqual(error("a = 1\nb 2\n"), "config.toml:2: expected '=' after the key 'b'")
        XCTAssertEqual(error("a = 1\na = 2\n"), "config.toml:2: the key 'a' is set twice")
        XCTAssertEqual(error("[x]\n[x]\n"), "config.toml:2: table [x] is defined twice")
        XCTAssertEqual(error("\n\ns = \"open\n"), "config.toml:3: a string on one line cannot contain a newline")
        XCTAssertEqual(
            error("x = 1\ns = \"\"\"never closed\n\n"), "config.toml:2: unterminated string (it starts on line 2)")
        XCTAssertEqual(error("a = yes\n"), "config.toml:1: 'yes' is not a TOML value (strings need quotes)")
        XCTAssertEqual(error("a = [1, 2\n"), "config.toml:2: unterminated array: expected ']'")
        XCTAssertEqual(error("a = 1 2\n"), "config.toml:1: unexpected '2' after a value; expected the end of the line")
        XCTAssertEqual(error("a = 1\n[a]\n"), "config.toml:2: 'a' is already a value, not a table")
        XCTAssertEqual(error("s = \"bad \\q\"\n"), "config.toml:1: invalid escape '\\q' in a string")
        XCTAssertEqual(error("[api\n"), "config.toml:1: expected ']' to close the table header")
    }

    func testCRLFFilesReadAsLF() throws {
        let t = try parse("[api]\r\nschemas = [\"public\",\r\n  \"app\"]\r\n# c\r\nport = 54321\r\n")
        XCTAssertEqual(t.value(at: "api.port"), .integer(54321))
        XCTAssertEqual(t.value(at: "api.schemas")?.array?.count, 2)
    }

    /// Mutations of a valid file never crash the reader, and a refusal always names a line of the file.
    func testMutatedFilesParseOrFailWithALine() {
        let base = Array(
            """
            [api]
            schemas = ["public", "app"] # c
            [db.seed]
            enabled = true
            sql_paths = ['./seed.sql', "./more/*.sql"]
            [auth.hook.custom_access_token]
            enabled = true
            uri = "pg-functions://postgres/public/hook"
            x = { a = 1, b = [1.5, 2] }
            """.unicodeScalars)
        let alphabet = Array("[]{}=\"'#,.\\\n ab1_-".unicodeScalars)
        var rng = SeededGenerator.printed(20_261_201)
        for n in 0..<3000 {
            var s = base
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<s.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: s.remove(at: at)
                case 1: s.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: s[at] = alphabet.randomElement(using: &rng)!
                }
            }
            let text = String(String.UnicodeScalarView(s))
            do { _ = try TOMLReader.parse(text, file: "f") } catch {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
                XCTAssertTrue(
                    (1...lines).contains(error.location.line), "case \(n): line \(error.location.line) of \(lines)")
            }
        }
    }
}
