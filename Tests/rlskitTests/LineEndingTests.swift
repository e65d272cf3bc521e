import Foundation
import Postgres
import TestSupport
import XCTest

/// Files saved on Windows (CRLF) or with a UTF-8 byte order mark work like any other.
final class LineEndingTests: XCTestCase {
    static func windows(_ text: String, bom: Bool = false) -> String {
        (bom ? "\u{FEFF}" : "")
            + text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
    }

    func testMigrationsWithCRLFAndByteOrderMark() throws {
        let db = try TestServer.makeDatabase(prefix: "crlf")
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.windows("create table crlf_t (x int);\n\ninsert into crlf_t values (1);\n", bom: true).write(
            toFile: dir + "/0001_bom.sql", atomically: true, encoding: .utf8)
        try Self.windows("-- rlskit:no-transaction\ncreate index concurrently crlf_i on crlf_t (x);\n").write(
            toFile: dir + "/0002_idx.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["apply", "--database-url", db.connectionString.raw, "--dir", dir, "--no-stand-in"])
        XCTAssertEqual(r.code, 0, r.output)
        let conn = try PostgresConnection(db.connectionString)
        XCTAssertEqual(
            try conn.query("select count(*)::int from pg_indexes where indexname = 'crlf_i'").rows[0].decode(0) as Int,
            1)
        // An error in a CRLF file still names the right line and column, without invisible characters.
        try Self.windows("select 1;\n\nselec 2;\n", bom: true).write(
            toFile: dir + "/0003_bad.sql", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["apply", "--database-url", db.connectionString.raw, "--dir", dir, "--no-stand-in"])
        XCTAssertEqual(bad.code, 3, bad.output)
        XCTAssertTrue(
            bad.stderr.hasPrefix("rlskit: \(dir)/0003_bad.sql:3:1: syntax error at or near \"selec\""), bad.stderr)
        XCTAssertFalse(bad.output.unicodeScalars.contains("\u{FEFF}") || bad.output.contains("\r"), bad.output)
    }

    func testAccessFilesScenariosPgTAPAndListsWithCRLF() throws {
        let db = try TestServer.makeDatabase(prefix: "crlft")
        defer { TestServer.drop(db.name) }
        let url = db.connectionString.raw
        let root = Provisioned.repositoryRoot
        XCTAssertEqual(try CLI.run(["apply", "--database-url", url, "--dir", root + "/sql/migrations"]).code, 0)
        let lf = try CLI.run(["test", "--database-url", url, root + "/sql/tests"])
        XCTAssertEqual(lf.code, 0, lf.output)
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (i, name) in try FileManager.default.contentsOfDirectory(atPath: root + "/sql/tests").enumerated() {
            let text = try String(contentsOfFile: root + "/sql/tests/" + name, encoding: .utf8)
            try Self.windows(text, bom: i % 2 == 0).write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        try Self.windows("\\set n 1\nselect plan(:n);\nselect ok(true);\n", bom: true).write(
            toFile: dir + "/t.sql", atomically: true, encoding: .utf8)
        let crlf = try CLI.run(["test", "--database-url", url, dir])
        XCTAssertEqual(crlf.code, 0, crlf.output)
        // + the pgTAP file's one test
        XCTAssertEqual(Self.passed(crlf.stdout), Self.passed(lf.stdout) + 1, crlf.stdout)
        // A mistake in a CRLF file names its line.
        try Self.windows("table public.profiles\n  owner id\n  readd anyone\n").write(
            toFile: dir + "/bad.rls", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["test", "--database-url", url, dir + "/bad.rls"])
        XCTAssertTrue(bad.stderr.hasPrefix("rlskit: \(dir)/bad.rls:3: unknown table setting 'readd'"), bad.stderr)
        // Lists of URLs and baselines saved with CRLF.
        try Self.windows("# two databases\n\(url)\n\(url)\n", bom: true).write(
            toFile: dir + "/urls.txt", atomically: true, encoding: .utf8)
        let many = try CLI.run(["audit", "--database-urls", dir + "/urls.txt"])
        XCTAssertNotEqual(many.code, 2, many.output)
        XCTAssertFalse(many.output.contains("not a valid connection string"), many.output)
    }

    /// "N passed" from the summary line.
    static func passed(_ output: String) -> Int {
        let line = output.split(separator: "\n").last { $0.contains(" passed, ") } ?? ""
        return Int(line.split(separator: " ").first ?? "") ?? -1
    }
}
