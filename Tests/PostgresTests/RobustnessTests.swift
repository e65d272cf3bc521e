import Postgres
import TestSupport
import XCTest

/// Misuse and edge cases that must leave the connection usable and tell the truth.
final class RobustnessTests: XCTestCase {
    func testCopyIsRefusedAndTheConnectionStaysUsable() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table c (x int)")
        XCTAssertThrowsError(try conn.query("copy c from stdin")) { XCTAssertTrue("\($0)".contains("COPY")) }
        XCTAssertThrowsError(try conn.query("copy c to stdout"))
        XCTAssertThrowsError(
            try conn.runScript("insert into c values (1); copy c from stdin; insert into c values (2);"))
        XCTAssertEqual(try conn.query("select 1 as one").rows[0].decode("one") as Int, 1)
    }

    func testNULIsRefusedNotTruncated() throws {
        let conn = try TestServer.connect()
        XCTAssertThrowsError(try conn.query("select $1::text", ["ab\u{0}cd"])) {
            XCTAssertTrue("\($0)".contains("NUL"))
        }
        XCTAssertThrowsError(try conn.pipeline([PostgresStatement("select $1::text", ["a\u{0}"])]))
        XCTAssertEqual(try conn.query("select 2 as two").rows[0].decode("two") as Int, 2)
    }

    func testSwallowedErrorsAreNotReportedAsSuccess() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table sw (x int)")
        XCTAssertThrowsError(
            try conn.transaction { c in
                try c.query("insert into sw values (1)")
                _ = try? c.query("select 1/0")
            })
        XCTAssertFalse(conn.inTransaction)
        try conn.transaction { c in
            try c.query("insert into sw values (2)")
            XCTAssertThrowsError(try c.savepoint { c in _ = try? c.query("select 1/0") })
            try c.query("insert into sw values (3)")
        }
        XCTAssertEqual(
            try conn.query("select array_agg(x order by x)::text as a from sw").rows[0].decode("a") as String, "{2,3}")
    }

    func testPreparedStatementsFollowParameterTypesAndSurviveDiscard() throws {
        let conn = try TestServer.connect()
        let ints = (0..<3).map { PostgresStatement("select $1 as v", [$0]) }
        let strings = (0..<3).map { PostgresStatement("select $1 as v", ["s\($0)"]) }
        XCTAssertEqual(
            try conn.pipeline(ints).compactMap { try $0.result?.rows[0].decode("v") as String? }, ["0", "1", "2"])
        XCTAssertEqual(
            try conn.pipeline(strings).compactMap { try $0.result?.rows[0].decode("v") as String? }, ["s0", "s1", "s2"])
        try conn.query("discard all")
        let first = try conn.pipeline(ints)
        // The server forgot the statement: that pipeline reports it, the next one re-prepares.
        if first.contains(where: { $0.error != nil }) {
            XCTAssertEqual(first.first?.error?.sqlState, "26000")
        }
        XCTAssertEqual(try conn.pipeline(ints).compactMap { $0.error }.count, 0)
    }

    func testFailingPrepareInsideATransactionDoesNotAbortIt() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table fp (x int)")
        try conn.transaction { c in
            try c.query("insert into fp values (1)")
            let out = try c.pipeline(
                [
                    PostgresStatement("selec 1"), PostgresStatement("selec 1"),
                    PostgresStatement("insert into fp values (2)"),
                ], isolation: .keepSuccesses)
            XCTAssertEqual(out.map { $0.error?.sqlState }, ["42601", "42601", nil])
        }
        XCTAssertEqual(try conn.query("select count(*)::int as n from fp").rows[0].decode("n") as Int, 2)
    }

    func testClientSideFailureLeavesPipelineModeCleanly() throws {
        let conn = try TestServer.connect()
        let many = (0..<70_000).map { $0 as any PostgresEncodable }
        XCTAssertThrowsError(try conn.pipeline([PostgresStatement("select 1"), PostgresStatement("select $1", many)]))
        XCTAssertEqual(try conn.query("select 3 as three").rows[0].decode("three") as Int, 3)
    }
}
