import Foundation
import TestSupport
import XCTest

@testable import Postgres

/// A pipeline whose groups are all undone sends its prepares in the same round as itself.
final class PipelineRoundsTests: XCTestCase {
    func testRollbackEachPreparesInTheSameRound() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table pr (x int)")
        let groups = (0..<6).map { i in
            [
                PostgresStatement("select set_config('rlskit_test.x', '1', true)"),
                PostgresStatement("insert into pr values (\(i))"),
            ]
        }
        let before = conn.pipelineRounds
        let out = try conn.pipeline(groups: groups, isolation: .rollbackEach)
        XCTAssertEqual(conn.pipelineRounds - before, 1)
        XCTAssertEqual(out.flatMap { $0 }.compactMap(\.error).count, 0)
        XCTAssertEqual(out.map { $0[1].result?.affectedRows }, Array(repeating: 1, count: 6))
        XCTAssertEqual(try conn.query("select count(*)::int as n from pr").rows[0].decode("n") as Int, 0)
        XCTAssertEqual(
            try conn.query(
                "select count(*)::int as n from pg_prepared_statements where statement like 'select set_config(''rlskit_test.x''%'"
            ).rows[0].decode("n") as Int, 1)
    }

    /// A repeated statement that cannot be prepared is run again unprepared: its own error is
    /// reported where it is used, the other groups are untouched, the transaction stays usable.
    func testFailedPrepareAheadReportsTheStatementsOwnError() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table pf (x int)")
        try conn.transaction { c in
            try c.query("insert into pf values (1)")
            let bad = PostgresStatement("select * from rlskit_no_such_table")
            let ok = PostgresStatement("select count(*)::int as n from pf")
            let out = try c.pipeline(groups: [[ok, bad], [ok], [bad], [ok, ok]], isolation: .rollbackEach)
            XCTAssertEqual(out.map { $0.map { $0.error?.sqlState } }, [[nil, "42P01"], [nil], ["42P01"], [nil, nil]])
            XCTAssertEqual(try out[1][0].result?.rows[0].decode("n") as Int?, 1)
            XCTAssertTrue(c.inTransaction)
            try c.query("insert into pf values (2)")
        }
        XCTAssertEqual(try conn.query("select count(*)::int as n from pf").rows[0].decode("n") as Int, 2)
    }
}
