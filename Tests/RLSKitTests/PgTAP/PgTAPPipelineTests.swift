import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Plain queries inside a file's own transaction go to the server in one message, and still stop
/// at the first error as psql's ON_ERROR_STOP does.
final class PgTAPPipelineTests: XCTestCase {
    func write(_ text: String, as name: String) throws -> PsqlScript {
        let dir = try CLI.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        return PsqlScript.load(path: dir + "/" + name, display: name)
    }

    func session(_ db: (name: String, connectionString: ConnectionString)) throws -> PgTAPSession {
        let session = PgTAPSession(try PostgresConnection(db.connectionString), setup: PgTAPSetup())
        try session.open()
        return session
    }

    func testARunOfAssertionsGoesInOneMessage() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let asserts = (1...40).map { "select ok(\($0) > 0, 'positive \($0)');" }.joined(separator: "\n")
        // current_query() is the whole message the statement came in.
        let script = try write(
            """
            begin;
            select plan(41);
            \(asserts)
            select ok(strpos(current_query(), 'positive 40') > 0, 'sent with the statements before it');
            select * from finish();
            rollback;

            """, as: "many.sql")
        let s = try session(db)
        let r = try s.run(script)
        XCTAssertTrue(r.passed, r.outcomes.filter(\.isFailure).map(\.name).joined(separator: "\n"))
        XCTAssertEqual(r.summary.tests.count, 41)
        XCTAssertEqual(r.summary.tests.first?.location?.line, 3, "each assertion keeps its own line")
        XCTAssertEqual(r.summary.tests.last?.location?.line, 43)
        try s.close()
    }

    func testAnErrorInTheMiddleStopsTheFileThere() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true, extraSQL: "create sequence public.pipe_seq;")
        defer { TestServer.drop(db.name) }
        let script = try write(
            """
            begin;
            select plan(3);
            select ok(true, 'first') -- a comment before the semicolon
            ;
            select nextval('public.pipe_seq');
            select ok(nope = 1, 'compares');
            select nextval('public.pipe_seq');
            select ok(true, 'never');
            rollback;

            """, as: "stops.sql")
        let s = try session(db)
        let r = try s.run(script)
        XCTAssertFalse(r.passed)
        XCTAssertEqual(r.summary.tests.count, 1, "the file stopped at the error")
        let err = try XCTUnwrap(r.sqlError)
        XCTAssertEqual(err.location.description, "stops.sql:6:11", "statement line plus the error position")
        XCTAssertTrue(err.message.contains("42703"), err.message)
        try s.close()
        // Sequences ignore rollbacks: the statement after the error was never run.
        let last: Int = try PostgresConnection(db.connectionString).query(
            "select last_value::int as n from public.pipe_seq"
        ).rows[0].decode("n")
        XCTAssertEqual(last, 1)
    }

    func testSettingsHoldWithinTheBatchAndNothingIsPrepared() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let script = try write(
            """
            begin;
            select plan(2);
            select ok(true, 'before');
            select set_config('rlskit_test.v', 'x', true);
            select is(current_setting('rlskit_test.v'), 'x', 'a setting made in the batch holds later in it');
            select * from finish();
            rollback;

            """, as: "settings.sql")
        let s = try session(db)
        let r = try s.run(script)
        XCTAssertTrue(r.passed, r.outcomes.map { "\($0.name) \($0.message ?? "")" }.joined(separator: "\n"))
        let prepared: Int = try s.conn.query("select count(*)::int as n from pg_prepared_statements").rows[0].decode(
            "n")
        XCTAssertEqual(prepared, 0, "the file's session gains no prepared statements")
        try s.close()
    }
}
