import Postgres
import TestSupport
import XCTest

final class ErrorTests: XCTestCase {
    func testSyntaxErrorCarriesSQLStateAndPosition() throws {
        let conn = try TestServer.connect()
        XCTAssertThrowsError(try conn.query("select 1 frm x")) { error in
            let e = error as! PostgresError
            XCTAssertEqual(e.sqlState, "42601")
            XCTAssertEqual(e.position, 14)  // "frm" is read as an alias; "x" is the error
            XCTAssertEqual(e.severity, "ERROR")
            XCTAssertEqual(e.kind, .server)
            XCTAssertTrue(e.description.contains("42601"))
        }
    }

    func testUniqueViolationNamesConstraintAndTable() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table u (k int constraint u_k_key unique)")
        try conn.query("insert into u values (1)")
        XCTAssertThrowsError(try conn.query("insert into u values ($1)", [1])) { error in
            let e = error as! PostgresError
            XCTAssertEqual(e.sqlState, "23505")
            XCTAssertEqual(e.constraint, "u_k_key")
            XCTAssertEqual(e.table, "u")
            XCTAssertNotNil(e.detail)
            XCTAssertNotNil(e.schema)
        }
    }

    func testFieldsFromPlpgsql() throws {
        let conn = try TestServer.connect()
        XCTAssertThrowsError(
            try conn.query(
                """
                do $$ begin raise exception using message = 'boom', detail = 'd', hint = 'h', errcode = 'P0099', column = 'c1', table = 't1'; end $$
                """)
        ) { error in
            let e = error as! PostgresError
            XCTAssertEqual(e.sqlState, "P0099")
            XCTAssertEqual(e.message, "boom")
            XCTAssertEqual(e.detail, "d")
            XCTAssertEqual(e.hint, "h")
            XCTAssertEqual(e.column, "c1")
            XCTAssertEqual(e.table, "t1")
            XCTAssertNotNil(e.context)
        }
    }

    func testInternalQueryAndPosition() throws {
        let conn = try TestServer.connect()
        XCTAssertThrowsError(try conn.query("do $$ begin execute 'select nope_col from pg_class'; end $$")) { error in
            let e = error as! PostgresError
            XCTAssertEqual(e.sqlState, "42703")
            XCTAssertEqual(e.internalQuery, "select nope_col from pg_class")
            XCTAssertEqual(e.internalPosition, 8)
        }
    }
}
