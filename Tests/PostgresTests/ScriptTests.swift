import Postgres
import TestSupport
import XCTest

final class ScriptTests: XCTestCase {
    func testMultiStatementScriptReturnsEveryResult() throws {
        let conn = try TestServer.connect()
        let out = try conn.runScript(
            """
            create temp table s (x int);
            insert into s values (1), (2);
            select x from s order by x;
            select 'two' as w, 3 as n;
            """)
        XCTAssertEqual(out.results.map(\.commandTag), ["CREATE TABLE", "INSERT 0 2", "SELECT 2", "SELECT 1"])
        XCTAssertEqual(try out.results[2].rows.map { try $0.decode("x") as Int }, [1, 2])
        XCTAssertEqual(try out.results[3].rows[0].decode("w") as String, "two")
    }

    func testScriptFailureKeepsCompletedResultsAndPosition() throws {
        let conn = try TestServer.connect()
        let script = "select 1;\nselect 2;\nselect oops from nowhere;\nselect 4;"
        do {
            _ = try conn.runScript(script)
            XCTFail("expected failure")
        } catch {
            XCTAssertEqual(error.completed.count, 2)
            XCTAssertEqual(error.error.sqlState, "42P01")
            // Position counts from the start of the whole script.
            let pos = try XCTUnwrap(error.error.position)
            let idx = script.index(script.startIndex, offsetBy: pos - 1)
            XCTAssertTrue(script[idx...].hasPrefix("nowhere"))
        }
        // The connection is usable afterwards.
        XCTAssertEqual(try conn.query("select 5 as v").rows[0].decode("v") as Int, 5)
    }
}
