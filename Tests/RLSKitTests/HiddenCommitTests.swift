import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Statements the old scanners misread ended rlskit's transaction: none may, and when the
/// server's state says one did anyway, the error names the file.
final class HiddenCommitTests: ScratchTestCase {
    func database(pgtap: Bool = false) throws -> (PostgresConnection, ConnectionString) {
        let db = try PgTAPFixtures.standInDatabase(pgtap: pgtap)
        dbs.append(db.name)
        return (try PostgresConnection(db.connectionString), db.connectionString)
    }

    func exists(_ conn: PostgresConnection, _ name: String) throws -> Bool {
        try conn.query("select to_regclass($1) is not null as e", [name]).rows[0].decode("e")
    }

    func testCommitWithATrailingCommentInPgTAPLeavesNothingBehind() throws {
        let (conn, url) = try database(pgtap: true)
        let dir = try folder([
            "sneaky.sql":
                "select plan(1);\ncreate table public.sneaky (x int);\ninsert into public.sneaky values (1);\ncommit--sneaky\n;\nselect ok(true);\n",
            "sneaky2.sql": "select plan(1);\ncreate table public.sneaky2 (x int);\nEND/* x */;\nselect ok(true);\n",
        ])
        let r = try PgTAPRunner(connection: url).run(try PgTAPRunner.discover([dir]))
        XCTAssertTrue(r.passed, "\(r.files.map { ($0.file, $0.malformed, $0.sqlError?.message ?? "") })")
        XCTAssertFalse(try exists(conn, "public.sneaky"), "the COMMIT was mapped onto a savepoint and rolled back")
        XCTAssertFalse(try exists(conn, "public.sneaky2"))
    }

    func testAMigrationHidingCommitBehindANonASCIIIdentifierIsRefused() throws {
        let (conn, url) = try database()
        _ = url
        let tricks = [
            "select 1 as €$a$;\ncommit; begin;\nselect 1/0; -- $a$\n",
            "select 1 as €E'\\';\ncommit; begin;\nselect 1/0; -- '\n",
            "select 1 as x€$a$;\ncommit--x\n; begin;\nselect 1/0; -- $a$\n",
        ]
        for (n, trick) in tricks.enumerated() {
            let dir = try folder(["001_t.sql": "create table public.half_\(n) (x int);\n" + trick])
            var o = Migrator.Options()
            o.standIn = false
            XCTAssertThrowsError(try Migrator(conn, source: .directory(dir), options: o).run(), trick) { e in
                XCTAssertTrue("\(e)".contains("001_t.sql:3: 'commit"), "\(e)")
                XCTAssertTrue("\(e)".contains("controls the transaction"), "\(e)")
            }
            XCTAssertFalse(try exists(conn, "public.half_\(n)"), "nothing of the file ran: \(trick)")
            let ledger =
                try exists(conn, "rlskit.migrations")
                ? try conn.query("select count(*)::int as n from rlskit.migrations").rows[0].decode("n") as Int : 0
            XCTAssertEqual(ledger, 0)
        }
    }

    /// With standard_conforming_strings off, '\'' does not end a string: a scanner that
    /// assumed it on would see one long string where the server sees a COMMIT.
    func testMigrationsAreScannedAsTheServerHasStandardConformingStrings() throws {
        let db = try TestServer.makeDatabase(prefix: "scs")
        dbs.append(db.name)
        let admin = try TestServer.connect()
        try admin.query("alter database \(try admin.escapeIdentifier(db.name)) set standard_conforming_strings = off")
        let conn = try PostgresConnection(db.connectionString)
        XCTAssertEqual(conn.parameterStatus("standard_conforming_strings"), "off")
        let dir = try folder([
            "001_t.sql": "create table public.scs (x int);\nselect 'a\\'b';\ncommit;\nselect 'x\\'y';\nselect 1/0;\n"
        ])
        var o = Migrator.Options()
        o.standIn = false
        XCTAssertThrowsError(try Migrator(conn, source: .directory(dir), options: o).run()) { e in
            XCTAssertTrue("\(e)".contains("001_t.sql:3: 'commit"), "\(e)")
        }
        XCTAssertFalse(try exists(conn, "public.scs"))
    }

    func testAMigrationThatSwitchesRoleOrDropsTheLedgerNamesFileAndLine() throws {
        let (conn, _) = try database()
        for (body, want) in [
            (
                "create table public.r (x int);\nset role anon;\n",
                "001_t.sql:2: the migration leaves the role switched to anon"
            ),
            (
                "create table public.r (x int);\n\ndrop schema rlskit cascade;\n",
                "001_t.sql:3: the migration drops schema rlskit"
            ),
        ] {
            let dir = try folder(["001_t.sql": body])
            var o = Migrator.Options()
            o.standIn = false
            XCTAssertThrowsError(try Migrator(conn, source: .directory(dir), options: o).run()) { e in
                XCTAssertTrue(e is ConfigurationError, "\(type(of: e)): \(e)")
                XCTAssertTrue("\(e)".contains(want), "\(e)")
            }
            XCTAssertFalse(try exists(conn, "public.r"))
        }
    }

    /// The server's state decides, whatever the scanner saw: a transaction ended and replaced
    /// by a new one is caught by its id, an ended one by libpq's transaction status.
    func testTheGuardsCatchATransactionTheFileEnded() throws {
        let conn = try TestServer.connect()
        let file = SQLFile(path: "m/001_x.sql", contents: "select 1;")
        try conn.query("begin")
        let guarded = try MigrationGuard.start(conn, inTransaction: true)
        _ = try conn.runScript("commit; begin")
        XCTAssertThrowsError(try guarded.check(conn, file, [])) { e in
            XCTAssertTrue("\(e)".hasPrefix("m/001_x.sql: the migration ended rlskit's transaction"), "\(e)")
        }
        try conn.query("commit")
        let at = SourceLocation(file: "t/a.sql", line: 7, column: 1)
        XCTAssertEqual(
            PgTAPSession.transactionProblem(conn, at: at)?.description.hasPrefix(
                "t/a.sql:7:1: this statement ended rlskit's transaction"), true)
        try conn.query("begin")
        XCTAssertNil(PgTAPSession.transactionProblem(conn, at: at))
        try conn.query("rollback")
    }

    /// A scenario step the parser let through but the server took as COMMIT: nothing of the
    /// unit stays, and the outcome names the scenario.
    func testAStepThatEndsTheTransactionFailsTheUnitNamingTheFile() throws {
        let (conn, _) = try database()
        let at = SourceLocation(file: "t/s.scenario", line: 3)
        let steps = ["create table public.stepped (x int)", "commit", "select 1"].map {
            PolicyCheck(
                suite: "s", actor: "admin", operation: "select", name: $0, statements: [$0], expectations: [.succeeds],
                location: at)
        }
        for isolation in [PipelineIsolation.keepSuccesses, .rollbackEach] {
            let unit = HarnessUnit(suite: "s", checks: steps, isolation: isolation, location: at)
            let out = try UnitRunner(conn: conn, skipUntested: false).run(unit)
            XCTAssertEqual(out.count, 1, "\(out.map { $0.name })")
            XCTAssertEqual(out.first?.status, .error)
            XCTAssertEqual(out.first?.location?.description, "t/s.scenario:3")
            XCTAssertTrue(out.first?.message?.contains("ended rlskit's transaction") ?? false, out.first?.message ?? "")
            XCTAssertFalse(conn.inTransaction)
            try conn.query("drop table if exists public.stepped")
        }
    }

    func testPgTAPFilesThatBreakTheSavepointOrHoldNULNameFileAndLine() throws {
        let (_, url) = try database(pgtap: true)
        let dir = try folder([
            "a-release.sql": "select plan(1);\nrelease savepoint rlskit_pgtap_statement;\nselect ok(true);\ncommit;\n",
            "b-nul.sql": "select plan(1);\nselect ok(true, 'x\u{0}y');\n",
        ])
        let r = try PgTAPRunner(connection: url).run(try PgTAPRunner.discover([dir]))
        let problems = r.files.flatMap(\.malformed).map(\.description)
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertTrue(
            problems[0].hasSuffix(
                "a-release.sql:3:1: a savepoint rlskit needs here no longer exists (the file's statement at line 2 released or rolled back past it): leave rlskit's savepoints (rlskit_pgtap_file, rlskit_pgtap_statement) alone; the run's work so far was rolled back"
            ), problems[0])
        XCTAssertTrue(
            problems[1].hasSuffix("b-nul.sql:2:19: contains a NUL byte, which PostgreSQL cannot accept: remove it"),
            problems[1])
    }

    func testANULByteInAScenarioStepIsAnInputErrorWithItsLine() {
        let text = "scenario s\n  user alice\n  as alice: select 1\n    , 'a\u{0}b'\n    expect ok\n"
        XCTAssertThrowsError(try ScenarioFile.parse(text, path: "t/x.scenario")) { e in
            XCTAssertEqual(
                "\(e)", "t/x.scenario:4: contains a NUL byte (column 9), which PostgreSQL cannot accept: remove it")
        }
        XCTAssertEqual(AccessFile.expressionProblem("'a\u{0}'"), "contains a NUL byte, which PostgreSQL cannot accept")
        // Under standard_conforming_strings off the server would run the COMMIT between these strings.
        XCTAssertEqual(AccessFile.expressionProblem("'a\\'b'; commit; select 'x\\'y'")?.hasPrefix("contains ';'"), true)
        XCTAssertNil(AccessFile.expressionProblem("'C:\\dir' || E'\\'' || $$\\$$"))
    }
}
