import Postgres
import TestSupport
import XCTest

final class PipelineTests: XCTestCase {
    func testKeepsOrderForManyStatements() throws {
        let conn = try TestServer.connect()
        let statements = (0..<5000).map { PostgresStatement("select $1::int * 2 as v, repeat('x', 100) as pad", [$0]) }
        let out = try conn.pipeline(statements)
        XCTAssertEqual(out.count, 5000)
        for (i, o) in out.enumerated() {
            XCTAssertEqual(try o.result?.rows[0].decode("v") as Int?, i * 2)
        }
        XCTAssertEqual(try conn.query("select 1 as one").rows[0].decode("one") as Int, 1)
    }

    func testWithoutIsolationAnErrorSkipsTheRest() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table p0 (x int)")
        let out = try conn.pipeline([
            PostgresStatement("insert into p0 values (1)"),
            PostgresStatement("select 1/0"),
            PostgresStatement("insert into p0 values (3)"),
        ])
        XCTAssertNotNil(out[0].result)
        XCTAssertEqual(out[1].error?.sqlState, "22012")
        guard case .skipped = out[2] else { return XCTFail("expected skipped, got \(out[2])") }
        // One implicit transaction: the first insert was undone too.
        XCTAssertEqual(try conn.query("select count(*)::int as n from p0").rows[0].decode("n") as Int, 0)
    }

    func testKeepSuccessesIsolatesFailuresInsideATransaction() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table p1 (x int primary key)")
        try conn.transaction { c in
            let out = try c.pipeline(
                [
                    PostgresStatement("insert into p1 values (1)"),
                    PostgresStatement("insert into p1 values (1)"),
                    PostgresStatement("insert into p1 values (2)"),
                    PostgresStatement("select 1/0"),
                    PostgresStatement("insert into p1 values (3)"),
                ], isolation: .keepSuccesses)
            XCTAssertEqual(out.map { $0.error?.sqlState }, [nil, "23505", nil, "22012", nil])
        }
        XCTAssertEqual(
            try conn.query("select array_agg(x order by x)::text as a from p1").rows[0].decode("a") as String, "{1,2,3}"
        )
    }

    func testKeepSuccessesOutsideATransaction() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table p2 (x int primary key)")
        let out = try conn.pipeline(
            groups: [
                [PostgresStatement("insert into p2 values (1)"), PostgresStatement("insert into p2 values (2)")],
                [
                    PostgresStatement("insert into p2 values (3)"), PostgresStatement("insert into p2 values (1)"),
                    PostgresStatement("insert into p2 values (9)"),
                ],
                [PostgresStatement("insert into p2 values (4)")],
            ], isolation: .keepSuccesses)
        XCTAssertEqual(out[1][1].error?.sqlState, "23505")
        guard case .skipped = out[1][2] else { return XCTFail("rest of a failed group is skipped") }
        XCTAssertEqual(
            try conn.query("select array_agg(x order by x)::text as a from p2").rows[0].decode("a") as String, "{1,2,4}"
        )
    }

    func testRollbackEachStartsEveryGroupFromTheSameStateAndLeavesNothing() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table p3 (x int primary key)")
        try conn.query("insert into p3 values (0)")
        let groups = (1...300).map { i -> [PostgresStatement] in
            [
                PostgresStatement("insert into p3 values ($1)", [i % 3 == 0 ? 0 : i]),
                PostgresStatement("select count(*)::int as n from p3"),
            ]
        }
        let out = try conn.pipeline(groups: groups, isolation: .rollbackEach)
        for (i, g) in out.enumerated() {
            if (i + 1) % 3 == 0 {
                XCTAssertEqual(g[0].error?.sqlState, "23505")
            } else {
                XCTAssertEqual(try g[1].result?.rows[0].decode("n") as Int?, 2, "group \(i) saw another group's row")
            }
        }
        XCTAssertFalse(conn.inTransaction)
        XCTAssertEqual(try conn.query("select count(*)::int as n from p3").rows[0].decode("n") as Int, 1)
    }

    func testSetLocalIsUndoneBetweenGroups() throws {
        let conn = try TestServer.connect()
        let out = try conn.pipeline(
            groups: [
                [
                    PostgresStatement("select set_config('request.jwt.claims', '{\"sub\":\"a\"}', true)"),
                    PostgresStatement("select current_setting('request.jwt.claims', true) as c"),
                ],
                [PostgresStatement("select coalesce(current_setting('request.jwt.claims', true), '') as c")],
            ], isolation: .rollbackEach)
        XCTAssertEqual(try out[0][1].result?.rows[0].decode("c") as String?, "{\"sub\":\"a\"}")
        XCTAssertEqual(try out[1][0].result?.rows[0].decode("c") as String?, "")
    }

    /// Repeated text is prepared once; text that cannot be prepared reports its own error at each use.
    func testRepeatedStatementsArePreparedAndBadOnesReportTheirError() throws {
        let conn = try TestServer.connect()
        try conn.query("create temp table p4 (x int)")
        let good = (0..<50).map { PostgresStatement("insert into p4 values ($1)", [$0]) }
        let bad = [PostgresStatement("selec $1", [1]), PostgresStatement("selec $1", [2])]
        let out = try conn.pipeline(good + bad + good, isolation: .keepSuccesses)
        XCTAssertEqual(out.compactMap(\.error).map(\.sqlState), ["42601", "42601"])
        XCTAssertEqual(try conn.query("select count(*)::int as n from p4").rows[0].decode("n") as Int, 100)
        // The prepared statement is reused by a later pipeline.
        _ = try conn.pipeline(good, isolation: .none)
        XCTAssertEqual(
            try conn.query(
                "select count(*)::int as n from pg_prepared_statements where statement = 'insert into p4 values ($1)'"
            ).rows[0].decode("n") as Int, 1)
    }

    func testNoticesInPipeline() throws {
        let conn = try TestServer.connect()
        _ = conn.takeNotices()
        _ = try conn.pipeline([
            PostgresStatement("do $$ begin raise notice 'one'; end $$"),
            PostgresStatement("do $$ begin raise notice 'two'; end $$"),
        ])
        XCTAssertEqual(conn.takeNotices().map(\.message), ["one", "two"])
    }
}
