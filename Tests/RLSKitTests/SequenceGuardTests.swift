import Postgres
import RLSKit
import TestSupport
import XCTest

final class SequenceGuardTests: XCTestCase {
    /// Ids a run consumed come back; ids another client committed meanwhile are never reissued.
    func testRestoresButNeverBelowCommittedRows() throws {
        let db = try TestServer.makeDatabase(prefix: "seq")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        try conn.query("create table t (id bigint generated always as identity primary key, v int)")
        try conn.query("create sequence free_standing")
        try conn.query("insert into t (v) values (1)")
        let guardian = try SequenceGuard.capture(conn)
        try conn.rolledBack { c in for _ in 0..<5 { try c.query("insert into t (v) values (0)") } }
        _ = try conn.query("select nextval('free_standing')")
        XCTAssertNil(try guardian.restore(conn))
        try conn.query("insert into t (v) values (2)")
        XCTAssertEqual(try conn.query("select max(id)::int from t").rows[0].decode(0) as Int, 2)
        // Free-standing sequences feed no column we can check: left alone.
        XCTAssertEqual(try conn.query("select last_value::int from free_standing").rows[0].decode(0) as Int, 1)

        // Another client commits rows during the run: the sequence stays past them.
        let g2 = try SequenceGuard.capture(conn)
        try conn.rolledBack { c in for _ in 0..<5 { try c.query("insert into t (v) values (0)") } }
        do {
            let other = try PostgresConnection(db.connectionString)
            try other.query("insert into t (v) values (3)")
        }
        XCTAssertNil(try g2.restore(conn))
        try conn.query("insert into t (v) values (4)")   // would be a duplicate key if reset below
        XCTAssertEqual(try conn.query("select count(distinct id)::int from t").rows[0].decode(0) as Int, 4)
    }
}
