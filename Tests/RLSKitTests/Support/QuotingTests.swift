import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// One way to quote: `SQL.ident` for SQL that runs, `SQL.display` for reports and lock files,
/// both checked against the server's own `quote_ident` and keyword list.
final class QuotingTests: XCTestCase {
    /// Names of every class that needs care: keywords of each category, case, digits, `$`,
    /// quotes, spaces, non-ASCII, line breaks, backslashes, empty; plus random ones.
    func names(_ conn: PostgresConnection) throws -> [String] {
        var out: [String] = try conn.query("select word from pg_get_keywords()").rows.map { try $0.decode(0) }
        out += out.map { $0.uppercased() }
        out += [
            "", "a", "_", "_1", "1a", "a1", "a$", "$a", "Ab", "a b", "a\"b", "\"", "é", "aé", "a\nb", "a\\b", "a\rb",
            "a-b", "a.b",
            "user_id", "window", "left", "full", "unique", "current_user", "owner", "select1", "x_select",
        ]
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abcxyz_09$AZ \"'.\\\n\té-")
        for _ in 0..<500 {
            out.append(
                String((0..<Int.random(in: 1...6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        }
        return out
    }

    func testKeywordListCoversTheServers() throws {
        let conn = try TestServer.connect()
        let server: [String] = try conn.query("select word from pg_get_keywords() where catcode <> 'U'").rows.map {
            try $0.decode(0)
        }
        XCTAssertFalse(server.isEmpty)
        XCTAssertEqual(
            Set(server).subtracting(SQL.keywords), [], "keywords this server has that SQL.keywords lacks: add them")
        // Our extra words are keywords of newer servers, never unreserved ones of this one.
        let unreserved: [String] = try conn.query("select word from pg_get_keywords() where catcode = 'U'").rows.map {
            try $0.decode(0)
        }
        XCTAssertEqual(SQL.keywords.intersection(unreserved), [])
    }

    func testIdentQuotesExactlyAsTheServer() throws {
        let conn = try TestServer.connect()
        let names = try names(conn)
        let quoted: [String] = try conn.query(
            "select pg_catalog.quote_ident(n) from unnest($1::text[]) with ordinality u(n, i) order by i",
            [names]
        ).rows.map { try $0.decode(0) }
        let serverKeywords = Set(
            try conn.query("select word from pg_get_keywords()").rows.map { try $0.decode(0) as String })
        XCTAssertEqual(quoted.count, names.count)
        for (n, q) in zip(names, quoted) {
            // Only keywords newer than this server may be quoted where it does not quote.
            if SQL.keywords.contains(n), !serverKeywords.contains(n) {
                XCTAssertEqual(SQL.ident(n), "\"\(n)\"")
                continue
            }
            XCTAssertEqual(SQL.ident(n), q, "name \(n.debugDescription)")
        }
        // And every quoted name reads back as itself, as a column alias.
        let sample = names.filter { !$0.isEmpty }.prefix(200)
        let back = try conn.query("select " + sample.map { "1 as \(SQL.ident($0))" }.joined(separator: ", "))
        XCTAssertEqual(back.columns.map(\.name), Array(sample))
    }

    func testDisplayMatchesTheServerSideFormAndStaysOnOneLine() throws {
        let conn = try TestServer.connect()
        let names = try names(conn)
        let shown: [String] = try conn.query(
            "select \(SQLParts.ident("n")) from unnest($1::text[]) with ordinality u(n, i) order by i",
            [names]
        ).rows.map { try $0.decode(0) }
        let serverKeywords = Set(
            try conn.query("select word from pg_get_keywords()").rows.map { try $0.decode(0) as String })
        for (n, s) in zip(names, shown) {
            XCTAssertFalse(SQL.display(n).contains("\n") || SQL.display(n).contains("\r"), n.debugDescription)
            XCTAssertEqual(LockFile.unquote(SQL.display(n, always: true)), n)
            if SQL.keywords.contains(n), !serverKeywords.contains(n) { continue }
            XCTAssertEqual(SQL.display(n), s, "name \(n.debugDescription)")
        }
    }
}

/// Lock files written before names were quoted by the full keyword list (keywords and `$`
/// left bare) still read back as the same surface.
final class LockFileNameTests: XCTestCase {
    func testOlderLockFileNamesCompareEqual() throws {
        let db = try StandIn.makeDatabase(prefix: "lockname")
        defer { TestServer.drop(db.name) }
        for s in [
            "create table public.\"user\" (id int)", "alter table public.\"user\" enable row level security",
            "create table public.\"a$b\" (id int)", "create table public.\"We.ird\"\"\" (id int)",
            "create function public.\"select\"(x \"char\") returns int language sql security definer as $$ select 1 $$",
        ] {
            try db.conn.query(s)
        }
        let current = try SurfaceReader.read(db.conn)
        let text = LockFile.render(current)
        XCTAssertTrue(text.contains("\ntable public.\"user\"\n"), text)
        XCTAssertTrue(text.contains("\nfunction public.\"select\"(\"char\")\n"), text)
        // As an older rlskit wrote the same surface.
        let older = text.replacingOccurrences(of: "public.\"user\"", with: "public.user")
            .replacingOccurrences(of: "public.\"a$b\"", with: "public.a$b")
            .replacingOccurrences(of: "public.\"select\"(", with: "public.select(")
        XCTAssertNotEqual(older, text)
        XCTAssertEqual(SurfaceDiff.diff(try LockFile.parse(older, file: "old.lock"), current), [])
        XCTAssertEqual(try LockFile.parse(text, file: "new.lock"), current)
        for odd in ["public.", ".a", "a.\"b", "a.b.c", "\"a\"x.b"] { XCTAssertEqual(LockFile.normalizedName(odd), odd) }
    }
}
