import Foundation
import Postgres
import TestSupport
import XCTest

/// `rlskit pgtap` as a user runs it: exit codes, formats, output files.
final class PgTAPCommandTests: XCTestCase {
    static let db: (name: String, connectionString: ConnectionString)? = try? PgTAPFixtures.standInDatabase(pgtap: true)
    var url: String { Self.db?.connectionString.raw ?? "" }
    func fixture(_ name: String) -> String { PgTAPFixtures.dir + "/" + name }

    override class func tearDown() {
        if let db { TestServer.drop(db.name) }
    }

    override func setUpWithError() throws {
        if Self.db == nil { XCTFail("no test database") }
    }

    func testPassingFilesExit0() throws {
        let r = try CLI.run([
            "pgtap", "--database-url", url, fixture("01-pass.sql"), fixture("06-skip-todo.sql"),
            fixture("11-helpers.sql"),
        ])
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("21 passed, 0 failed, 1 skipped, 1 todo"), r.stdout)
        XCTAssertEqual(r.stderr, "")
    }

    func testFailuresExit1WithLocation() throws {
        let r = try CLI.run(["pgtap", "--database-url", url, fixture("02-fail.sql"), fixture("07-sql-error.sql")])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("02-fail.sql:5:1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("07-sql-error.sql:6:8"), r.stdout)
        XCTAssertTrue(r.stdout.contains("relation \"public.no_such_table\" does not exist"), r.stdout)
    }

    func testUnsupportedMetaCommandExit2NamingFileAndLine() throws {
        let r = try CLI.run(["pgtap", "--database-url", url, fixture("09-meta-typo.sql"), fixture("01-pass.sql")])
        XCTAssertEqual(r.code, 2, r.output)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(
            lines[0].hasPrefix("rlskit: \(fixture("09-meta-typo.sql")):4:1: \\sett is not supported by rlskit pgtap"),
            r.stderr)
        XCTAssertTrue(r.stdout.contains("01-pass.sql  4 passed"), "the other files still run")
    }

    /// A missing `\i` / `\include` file fails that file where psql stops (exit 1), as pg_prove
    /// fails it; the other files run and the run is no usage error.
    func testMissingIncludeFailsItsFileOnly() throws {
        let r = try CLI.run([
            "pgtap", "--database-url", url, fixture("18-include-missing.sql"), fixture("19-include-nested-missing.sql"),
            fixture("10-include.sql"),
        ])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertEqual(r.stderr, "")
        XCTAssertTrue(r.stdout.contains("18-include-missing.sql:5:1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("helpers/not-there.sql: no such file"), r.stdout)
        XCTAssertTrue(r.stdout.contains("_includes_missing.psql:3:1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("10-include.sql  2 passed"), r.stdout)
    }

    /// `\gexec` ending a statement stops its file before anything in it runs: exit 2, one line.
    func testGexecAfterAStatementExits2BeforeTheFileRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rlskit-gexec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("gexec.sql").path
        try "create table public.gexec_ran (x int);\nselect 'select 1' \\gexec\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["pgtap", "--database-url", url, file])
        XCTAssertEqual(r.code, 2, r.output)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(lines[0].hasPrefix("rlskit: \(file):2:19: \\gexec is not supported by rlskit pgtap"), r.stderr)
        XCTAssertFalse(r.output.contains("42601"), r.output)
    }

    func testBadInputExits2BeforeConnecting() throws {
        for args in [
            ["/no/such/dir"], ["--format", "xml", fixture("01-pass.sql")], ["--jobs", "0", fixture("01-pass.sql")],
            ["--output", "/no/such/dir/report.xml", fixture("01-pass.sql")],
            ["--helpers", "gotrue", fixture("01-pass.sql")],
        ] {
            let r = try CLI.run(["pgtap", "--database-url", "postgresql://nobody@127.0.0.1:1/none"] + args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.output)")
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: "), r.stderr)
            XCTAssertFalse(r.stderr.contains("cannot connect"), r.stderr)
        }
    }

    func testUnreachableServerExits3() throws {
        let r = try CLI.run([
            "pgtap", "--database-url", "postgresql://u:secret-pw@127.0.0.1:1/none?connect_timeout=3",
            fixture("01-pass.sql"),
        ])
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot connect to"), r.stderr)
        XCTAssertFalse(r.output.contains("secret-pw"))
    }

    func testReportFormatsAndOutputFile() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let junit = try CLI.run([
            "pgtap", "--database-url", url, "--format", "junit", "--output", dir + "/r.xml", "--jobs", "2",
            fixture("01-pass.sql"), fixture("02-fail.sql"),
        ])
        XCTAssertEqual(junit.code, 1)
        let xml = try String(contentsOfFile: dir + "/r.xml", encoding: .utf8)
        XCTAssertTrue(xml.contains("<testsuites name=\"rlskit\" tests=\"7\" failures=\"1\""), xml)
        XCTAssertTrue(junit.stdout.contains("1 of 3 failed"), "a text summary still goes to stdout")

        let json = try CLI.run(["pgtap", "--database-url", url, "--format", "json", fixture("05-too-few.sql")])
        XCTAssertEqual(json.code, 1)
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(doc?["failed"] as? Int, 1)

        let tap = try CLI.run(["pgtap", "--database-url", url, "--format", "tap", fixture("06-skip-todo.sql")])
        XCTAssertEqual(tap.code, 0)
        XCTAssertTrue(tap.stdout.hasPrefix("TAP version 13\n1..4\n"), tap.stdout)
        XCTAssertTrue(tap.stdout.contains("# SKIP no storage API here"), tap.stdout)
    }

    func testPrintHelpersPrintsTheSetInUse() throws {
        let basejump = try CLI.run(["pgtap", "--print-helpers"])
        XCTAssertEqual(basejump.code, 0)
        XCTAssertTrue(basejump.stdout.contains("create or replace function tests.authenticate_as(identifier text)"))
        XCTAssertFalse(basejump.stdout.contains("supabase_auth_admin"), "basejump's users are inserted by the caller")
        let api = try CLI.run(["pgtap", "--helpers", "api", "--print-helpers"])
        XCTAssertEqual(api.code, 0)
        XCTAssertTrue(api.stdout.contains("owner to supabase_auth_admin"))
        XCTAssertNotEqual(basejump.stdout, api.stdout)
    }

    func testHelpListsOptions() throws {
        let r = try CLI.run(["pgtap", "--help"])
        XCTAssertEqual(r.code, 0)
        for o in ["--database-url", "--format", "--output", "--jobs"] { XCTAssertTrue(r.stdout.contains(o), o) }
    }
}

extension PgTAPCommandTests {
    func testLostConnectionExits3WithOneLine() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "select plan(2);\nselect ok(true);\nselect pg_terminate_backend(pg_backend_pid());\nselect ok(true);\n"
            .write(toFile: dir + "/k.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["pgtap", "--database-url", url, dir])
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("lost the connection while running"), r.stderr)
    }
}
