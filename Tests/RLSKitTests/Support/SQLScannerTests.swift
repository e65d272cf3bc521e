import Postgres
import TestSupport
import XCTest

@testable import RLSKit

final class SQLScannerTests: XCTestCase {
    func testSplitsRespectingQuotesCommentsAndDollarQuotes() {
        let sql = """
            -- leading comment; not a statement
            select 'a;b', "c;d", E'it\\'s;' as x;
            /* block; /* nested; */ still */ create function f() returns int as $fn$ select 1; $fn$ language sql;
            do $$ begin raise notice 'x;y'; end $$;
            \\set foo 1
            select $1::int, ($2);  select 3
            """
        let st = SQLScanner.statements(in: sql)
        XCTAssertEqual(st.map(\.kind), [.sql, .sql, .sql, .meta, .sql, .sql])
        XCTAssertEqual(st[0].text, "select 'a;b', \"c;d\", E'it\\'s;' as x")
        XCTAssertEqual(st[0].line, 2)
        XCTAssertTrue(st[1].text.hasPrefix("create function f()"))
        XCTAssertTrue(st[1].text.hasSuffix("language sql"))
        XCTAssertEqual(st[1].line, 3)
        XCTAssertEqual(st[3].text, "\\set foo 1")
        XCTAssertEqual(st[4].text, "select $1::int, ($2)")
        XCTAssertEqual(st[5].text, "select 3")
        XCTAssertEqual(st[5].line, 6)
        XCTAssertEqual(st[5].column, 24)
    }

    func testEmptyAndUnterminatedInputNeverCrash() {
        XCTAssertEqual(SQLScanner.statements(in: "").count, 0)
        XCTAssertEqual(SQLScanner.statements(in: "  ;; -- x\n").count, 0)
        for s in ["select '", "select $$ unterminated", "/* open", "select \"x", "E'\\", "$", "$a", "(((", "\\"] {
            _ = SQLScanner.statements(in: s)
        }
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("ab$'\";-/*\\()\nE ")
        for _ in 0..<2000 {
            let s = String((0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let st = SQLScanner.statements(in: s)
            for x in st { XCTAssertGreaterThanOrEqual(x.line, 1) }
        }
    }

    /// Statement offsets agree with the positions the server reports.
    func testPositionsMatchTheServer() throws {
        let conn = try TestServer.connect()
        let script = "select 1;\n  select 'é' as e, 2;\nselect nope_column from pg_class;"
        do {
            _ = try conn.runScript(script)
            XCTFail("expected an error")
        } catch {
            let pos = try XCTUnwrap(error.error.position)
            let lc = SQLScanner.lineAndColumn(ofPosition: pos, in: script)
            XCTAssertEqual(lc.line, 3)
            XCTAssertEqual(lc.column, 8)
        }
    }
}

extension SQLScannerTests {
    func testBeginAtomicBodiesStayWhole() {
        let sql = """
            create function f() returns int language sql begin atomic select 1; select case when true then 2 end; end;
            select 3;
            create table t (case_ int, "end" int);
            begin; commit;
            """
        let st = SQLScanner.statements(in: sql)
        XCTAssertEqual(st.count, 5, "\(st.map(\.text))")
        XCTAssertTrue(st[0].text.hasSuffix("end; end"))
        XCTAssertEqual(st[1].text, "select 3")
        XCTAssertEqual(st[3].text, "begin")
    }

    func testKeywordsSkipCommentsAndPunctuation() {
        XCTAssertEqual(SQLScanner.keywords("commit/* done */", count: 2), ["commit"])
        XCTAssertEqual(
            SQLScanner.keywords("  -- x\n ROLLBACK WORK TO SAVEPOINT a", count: 3), ["rollback", "work", "to"])
        XCTAssertEqual(SQLScanner.keywords("(select 1)", count: 1), ["select"])
    }
}

extension SQLScannerTests {
    /// What the old scanners got wrong: non-ASCII identifier characters, `-` in words,
    /// and strings under standard_conforming_strings off.
    func testIdentifiersCommentsAndStringsAsPostgreSQLLexesThem() {
        XCTAssertEqual(
            SQLScanner.statements(in: "select 1 as €$a$; commit; begin; select $a$").map(\.text),
            ["select 1 as €$a$", "commit", "begin", "select $a$"])
        XCTAssertEqual(
            SQLScanner.statements(in: "select 1 as €E'\\'; commit; select '\\'").map(\.text),
            ["select 1 as €E'\\'", "commit", "select '\\'"])
        XCTAssertEqual(SQLScanner.keywords("commit--sneaky", count: 2), ["commit"])
        XCTAssertEqual(SQLScanner.keywords("'commit' \"begin\" $$end$$ rollback", count: 1), ["rollback"])
        // One statement; its last backslash is outside quotes, so a meta-command follows, as in psql.
        XCTAssertEqual(
            SQLScanner.statements(in: "select 'a\\'b'; commit; select 'x\\'y'").map(\.kind), [.sql, .meta])
        XCTAssertEqual(
            SQLScanner.statements(in: "select 'a\\'b'; commit; select 'x\\'y'", standardConformingStrings: false).count,
            3)
        XCTAssertEqual(
            SQLScanner.statements(in: "select\u{00A0}1; commit").map(\.text), ["select\u{00A0}1", "commit"],
            "a no-break space is an identifier character to PostgreSQL, not a space")
        XCTAssertEqual(
            SQLScanner.statements(in: "create function begin() returns int language sql as $$ select 1 $$; commit")
                .count, 2,
            "only BEGIN ATOMIC opens a block")
        XCTAssertEqual(
            SQLScanner.statements(in: "\\echo it's\ncommit;\nselect 'x").map(\.text),
            ["\\echo it's", "commit", "select 'x"],
            "a meta-command ends at its line, quotes and all")
    }

    func testAccessFileCommentsStartOutsideEverySQLQuote() {
        XCTAssertEqual(AccessFile.stripComment("  seed body = $$a # b$$  # note"), "seed body = $$a # b$$")
        XCTAssertEqual(AccessFile.stripComment("seed x = E'\\'' # it's"), "seed x = E'\\''")
        XCTAssertEqual(AccessFile.stripComment("table public.\"we#ird\" # c"), "table public.\"we#ird\"")
        XCTAssertEqual(AccessFile.stripComment("read anyone # the user's"), "read anyone")
    }
}
