import Foundation
import Postgres
import TestSupport
import XCTest

final class ApplyCommandTests: XCTestCase {
    var dbs: [String] = []
    var dirs: [String] = []
    override func tearDown() {
        for d in dbs { TestServer.drop(d) }
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func database() throws -> ConnectionString {
        let db = try TestServer.makeDatabase(prefix: "cli")
        dbs.append(db.name)
        return db.connectionString
    }

    func folder(_ files: [String: String]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (n, t) in files { try t.write(toFile: dir + "/" + n, atomically: true, encoding: .utf8) }
        return dir
    }

    func testDryRunThenApplyThenNoOp() throws {
        let url = try database().raw
        let dry = try CLI.run(["apply", "--database-url", url, "--dry-run"])
        XCTAssertEqual(dry.code, 0, dry.output)
        XCTAssertTrue(dry.stdout.contains("pending  0001_profiles"), dry.stdout)
        let first = try CLI.run(["apply", "--database-url", url])
        XCTAssertEqual(first.code, 0, first.output)
        XCTAssertTrue(first.stdout.contains("applied 0001_profiles"))
        let second = try CLI.run(["apply", "--database-url", url])
        XCTAssertEqual(second.code, 0)
        XCTAssertTrue(second.stdout.contains("nothing to apply"), second.stdout)
    }

    /// The error's one line, then what was applied, where it stopped and what was not applied.
    func testBrokenMigrationExits3WithFileLineAndASummary() throws {
        let url = try database().raw
        let dir = try folder([
            "001_ok.sql": "create table t1 (x int);",
            "002_bad.sql": "create table t2 (x int);\ncreate tabel t3 (x int);",
            "003_later.sql": "create table t4 (x int);",
            "004_last.sql": "create table t5 (x int);",
        ])
        let r = try CLI.run(["apply", "--database-url", url, "--dir", dir, "--no-stand-in"])
        XCTAssertEqual(r.code, 3)
        XCTAssertEqual(r.stderr, "rlskit: \(dir)/002_bad.sql:2:8: syntax error at or near \"tabel\" (SQLSTATE 42601)\n")
        XCTAssertTrue(
            r.stdout.hasSuffix(
                """
                apply stopped at 002_bad.sql line 2: that file was rolled back, nothing of it is kept
                  applied in this run: 001_ok.sql
                  not applied: 002_bad.sql, 003_later.sql, 004_last.sql
                  fix 002_bad.sql, then run again

                """), r.stdout)
        XCTAssertTrue(r.stdout.contains("applied 001_ok ("), r.stdout)
        let tables: [String] = try PostgresConnection(ConnectionString(url)).query(
            "select relname::text as n from pg_class where relname in ('t1', 't2', 't4') order by 1"
        ).rows.map { try $0.decode("n") }
        XCTAssertEqual(tables, ["t1"], "what the summary says is what the database has")
        // The second run: the first file was applied before, this run applies none.
        let again = try CLI.run(["apply", "--database-url", url, "--dir", dir, "--no-stand-in"])
        XCTAssertEqual(again.code, 3)
        XCTAssertTrue(again.stdout.contains("\n  applied in this run: none (and 1 applied before)\n"), again.stdout)
    }

    /// A file run outside a transaction keeps what ran before the failing statement: it says so.
    func testBrokenNoTransactionFileSaysWhatWasKept() throws {
        let url = try database().raw
        let dir = try folder([
            "001_index.sql": "-- rlskit:no-transaction\ncreate table t1 (x int);\nselect 1/0;\n",
            "002_after.sql": "create table t2 (x int);",
        ])
        let r = try CLI.run(["apply", "--database-url", url, "--dir", dir, "--no-stand-in"])
        XCTAssertEqual(r.code, 3)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(
            r.stdout.contains(
                "apply stopped at 001_index.sql line 3: it runs outside a transaction (rlskit:no-transaction), so its statements before line 3 were kept\n  applied in this run: none\n  not applied: 001_index.sql, 002_after.sql\n"
            ), r.stdout)
    }

    func testChangedFileExits2() throws {
        let url = try database().raw
        let dir = try folder(["001_ok.sql": "create table t1 (x int);"])
        XCTAssertEqual(try CLI.run(["apply", "--database-url", url, "--dir", dir]).code, 0)
        try "create table t1 (y int);".write(toFile: dir + "/001_ok.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["apply", "--database-url", url, "--dir", dir])
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.hasPrefix("rlskit: \(dir)/001_ok.sql: changed since it was applied"), r.stderr)
    }

    func testStorageSettingsNeverPrintTheKey() throws {
        let url = try database().raw
        let key = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.\(UUID().uuidString)"
        let r = try CLI.run(
            [
                "apply", "--database-url", url, "--storage-url", "https://abc.supabase.co", "--service-key-env",
                "MY_KEY",
            ],
            environment: ["MY_KEY": key])
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(
            r.stdout.contains("storage API settings written to private.storage_api_settings (key from $MY_KEY)"))
        XCTAssertFalse(r.output.contains(key))
        let missing = try CLI.run([
            "apply", "--database-url", url, "--storage-url", "https://abc.supabase.co", "--service-key-env",
            "NOPE_NOT_SET",
        ])
        XCTAssertEqual(missing.code, 2)
        XCTAssertEqual(
            missing.stderr, "rlskit: environment variable NOPE_NOT_SET (from --service-key-env) is not set or empty\n")
        let badURL = try CLI.run(
            ["apply", "--database-url", url, "--storage-url", "ftp://x", "--service-key-env", "MY_KEY"],
            environment: ["MY_KEY": key])
        XCTAssertEqual(badURL.code, 2)
    }

    func testBadDurationAndMissingDirectory() throws {
        let d = try CLI.run(["apply", "--lock-timeout", "soon"])
        XCTAssertEqual(d.code, 2)
        XCTAssertEqual(d.stderr, "rlskit: --lock-timeout 'soon' is not a duration; use e.g. 30s, 500ms or 2m\n")
        let url = try database().raw
        let m = try CLI.run(["apply", "--database-url", url, "--dir", "/nonexistent/migrations"])
        XCTAssertEqual(m.code, 2)
        XCTAssertEqual(m.stderr, "rlskit: /nonexistent/migrations: no such directory\n")
    }
}
