import Foundation
import Postgres
import Synchronization
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

final class SequenceGuardTests: XCTestCase {
    func makeTables(_ conn: PostgresConnection) throws {
        try conn.query("create table t (id bigint generated always as identity primary key, v int)")
        try conn.query("create sequence free_standing")
        try conn.query("create sequence by_ten increment by 10")
        try conn.query("create sequence \"Odd\nseq\"")
        try conn.query("insert into t (v) values (1)")
    }

    func value(_ conn: PostgresConnection, _ sql: String) throws -> Int {
        try conn.query(sql).rows[0].decode(0)
    }

    /// On a database rlskit owns every moved sequence is put back, free-standing ones too,
    /// but never below ids committed meanwhile.
    func testOwnedDatabaseResetsEverySequence() throws {
        let db = try TestServer.makeDatabase(prefix: "seq")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        try makeTables(conn)
        let guardian = try SequenceGuard.capture(conn)
        try conn.rolledBack { c in for _ in 0..<5 { try c.query("insert into t (v) values (0)") } }
        _ = try conn.query("select nextval('free_standing'), nextval('by_ten'), nextval('\"Odd\nseq\"')")
        let advances = try guardian.finish(conn, owned: true)
        XCTAssertEqual(
            advances,
            [
                SequenceAdvance(sequence: "public.\"Odd\\nseq\"", advancedBy: 1, reset: true),
                SequenceAdvance(sequence: "public.by_ten", advancedBy: 1, reset: true),
                SequenceAdvance(sequence: "public.free_standing", advancedBy: 1, reset: true),
                SequenceAdvance(sequence: "public.t_id_seq", advancedBy: 5, reset: true),
            ])
        XCTAssertNil(SequenceGuard.note(advances))
        try conn.query("insert into t (v) values (2)")
        XCTAssertEqual(try value(conn, "select max(id)::int from t"), 2)
        XCTAssertEqual(try value(conn, "select nextval('free_standing')::int"), 1)
        XCTAssertEqual(try value(conn, "select nextval('by_ten')::int"), 1)
        XCTAssertEqual(try value(conn, "select nextval('\"Odd\nseq\"')::int"), 1)

        let g2 = try SequenceGuard.capture(conn)
        try conn.rolledBack { c in for _ in 0..<5 { try c.query("insert into t (v) values (0)") } }
        try PostgresConnection(db.connectionString).query("insert into t (v) values (3)")
        _ = try g2.finish(conn, owned: true)
        try conn.query("insert into t (v) values (4)")  // a duplicate key if reset below the committed row
        XCTAssertEqual(try value(conn, "select count(distinct id)::int from t"), 4)
    }

    /// On a database rlskit does not own nothing is reset; each advance is reported exactly.
    func testUnownedDatabaseIsNeverResetAndAdvancesAreReported() throws {
        let db = try TestServer.makeDatabase(prefix: "seq")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        try makeTables(conn)
        let guardian = try SequenceGuard.capture(conn)
        try conn.rolledBack { c in for _ in 0..<3 { try c.query("insert into t (v) values (0)") } }
        _ = try conn.query("select nextval('by_ten'), nextval('by_ten')")
        let advances = try guardian.finish(conn, owned: false)
        XCTAssertEqual(
            advances,
            [
                SequenceAdvance(sequence: "public.by_ten", advancedBy: 2, reset: false),
                SequenceAdvance(sequence: "public.t_id_seq", advancedBy: 3, reset: false),
            ])
        XCTAssertEqual(
            SequenceGuard.note(advances),
            "note: sequences advanced by the run, left as they are (gaps are harmless; resetting could hand an id out twice): public.by_ten +2, public.t_id_seq +3"
        )
        XCTAssertEqual(try value(conn, "select last_value::int from t_id_seq"), 4)
        XCTAssertEqual(try value(conn, "select last_value::int from by_ten"), 11)
    }

    /// Writers that open a new connection per insert while test runs come and go: no id is
    /// ever handed out twice.
    func testWritersOnNewConnectionsNeverGetADuplicateKey() throws {
        let db = try TestServer.makeDatabase(prefix: "seq")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        try conn.query("create table t (id bigint generated always as identity primary key, v int)")
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        let inserts = Atomic<Int>(0)
        let writers = DispatchGroup()
        for w in 0..<2 {
            DispatchQueue.global().async(group: writers) {
                while !stop.load(ordering: .relaxed) {
                    do {
                        let c = try PostgresConnection(db.connectionString)
                        try c.query("insert into t (v) values ($1)", [w])
                        inserts.add(1, ordering: .relaxed)
                    } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
        }
        for _ in 0..<40 {
            let guardian = try SequenceGuard.capture(conn)
            try conn.rolledBack { c in for _ in 0..<5 { try c.query("insert into t (v) values (9)") } }
            _ = try guardian.finish(conn, owned: false)
        }
        stop.store(true, ordering: .relaxed)
        writers.wait()
        XCTAssertGreaterThan(inserts.load(ordering: .relaxed), 0)
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(try value(conn, "select count(*)::int - count(distinct id)::int from t"), 0)
    }
}
