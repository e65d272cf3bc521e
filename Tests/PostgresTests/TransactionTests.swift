import Postgres
import TestSupport
import XCTest

final class TransactionTests: XCTestCase {
    struct Boom: Error {}

    func testTransactionCommitsOrRollsBack() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table tx (x int)")
        try conn.transaction { c in try c.query("insert into tx values (1)") }
        XCTAssertThrowsError(
            try conn.transaction { c in
                try c.query("insert into tx values (2)")
                throw Boom()
            }
        ) { XCTAssertTrue($0 is Boom) }
        XCTAssertFalse(conn.inTransaction)
        XCTAssertEqual(try conn.query("select count(*)::int as n from tx").rows[0].decode("n") as Int, 1)
    }

    func testSavepointRollsBackOnThrowAndKeepsOuterWork() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table sp (x int)")
        try conn.transaction { c in
            try c.query("insert into sp values (1)")
            XCTAssertThrowsError(
                try c.savepoint { c in
                    try c.query("insert into sp values (2)")
                    try c.savepoint { c in try c.query("insert into sp values (3)") }
                    try c.query("select 1/0")
                })
            try c.savepoint { c in try c.query("insert into sp values (4)") }
        }
        XCTAssertEqual(
            try conn.query("select array_agg(x order by x)::text as a from sp").rows[0].decode("a") as String, "{1,4}")
    }

    func testRolledBackLeavesNothing() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table rb (x int)")
        try conn.rolledBack { c in try c.query("insert into rb values (1)") }
        XCTAssertThrowsError(
            try conn.rolledBack { c in
                try c.query("insert into rb values (1)")
                throw Boom()
            })
        XCTAssertEqual(try conn.query("select count(*)::int as n from rb").rows[0].decode("n") as Int, 0)
        XCTAssertFalse(conn.inTransaction)
    }
}
