import Foundation
import Postgres
@_spi(CLI) import RLSKit
import TestSupport
import XCTest

/// The grants regime in the HTML report's run facts: modelled by `check` on its throwaway
/// database, read from the database's default privileges by `audit`.
final class HTMLRunFactsTests: XCTestCase {
    func testAuditReadsTheGrantsRegimeFromTheDatabase() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let db = try StandIn.makeDatabase(prefix: "htmlgrants")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(
            "alter default privileges in schema public revoke all on tables from anon, authenticated;")
        func grants() throws -> String {
            let a = try CLI.run(["audit", "--database-url", db.connectionString.raw, "--html", tmp + "/a.html"])
            XCTAssertNotEqual(a.code, 2, a.output)
            let html = try String(contentsOfFile: tmp + "/a.html", encoding: .utf8)
            let start = try XCTUnwrap(html.range(of: "<dt>grants</dt><dd>"), html).upperBound
            return String(html[start...].prefix { $0 != "<" })
        }
        XCTAssertEqual(
            try grants(),
            "grants explicit (read from the database: no default privileges for anon or authenticated in public)")
        _ = try db.conn.runScript("alter default privileges in schema public grant select on tables to authenticated;")
        XCTAssertEqual(
            try grants(),
            "grants automatic (read from the database: default privileges give anon or authenticated new tables in public)"
        )
    }

    func testCheckNamesTheModelledRegime() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try "create table public.notes (id int primary key);\nalter table public.notes enable row level security;\n"
            .write(
                toFile: tmp + "/m/20250101000000_notes.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--allow-empty", "--html", tmp + "/r.html"], environment: ["TMPDIR": tmp],
            directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        let html = try String(contentsOfFile: tmp + "/r.html", encoding: .utf8)
        XCTAssertTrue(
            html.contains(
                "<dt>grants</dt><dd>grants automatic (the first migration, 20250101000000, predates 2026-05-30"),
            html)
    }
}
