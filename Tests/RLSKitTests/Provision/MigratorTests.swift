import Foundation
import Postgres
import Synchronization
import TestSupport
import XCTest

@testable import RLSKit

final class MigratorTests: ScratchTestCase {
    func database() throws -> PostgresConnection { try database(prefix: "mig") }

    func migrate(_ conn: PostgresConnection, _ dir: String, _ configure: (inout Migrator.Options) -> Void = { _ in })
        throws -> Migrator.Result
    {
        var o = Migrator.Options()
        configure(&o)
        return try Migrator(conn, source: .directory(dir), options: o).run()
    }

    func count(_ conn: PostgresConnection, _ sql: String) throws -> Int { try conn.query(sql).rows[0].decode(0) }

    func testOurSchemaAppliesAndSecondRunIsANoOp() throws {
        let conn = try database()
        let o = Migrator.Options()
        let first = try Migrator(conn, source: .builtIn, options: o).run()
        XCTAssertEqual(first.applied.count, BuiltInSQL.files(in: "migrations").count)
        XCTAssertEqual(first.standIn?.installed.count, BuiltInSQL.files(in: "compat").count)
        let second = try Migrator(conn, source: .builtIn, options: o).run()
        XCTAssertEqual(second.applied.count, 0)
        XCTAssertEqual(second.standIn?.installed, [])
        XCTAssertTrue(second.plan.allSatisfy { $0.status == .applied })
        let ledger = try conn.query(
            "select version, checksum, duration_ms, applied_by from rlskit.migrations order by version"
        ).rows
        XCTAssertEqual(
            try ledger.map { try $0.decode("checksum") as String }, BuiltInSQL.files(in: "migrations").map(\.checksum))
        XCTAssertEqual(try ledger[0].decode("applied_by") as String, "postgres")
    }

    func testChangedAppliedFileIsRefused() throws {
        let conn = try database()
        let dir = try folder(["001_a.sql": "create table a (x int);", "002_b.sql": "create table b (x int);"])
        _ = try migrate(conn, dir) { $0.standIn = false }
        try "create table a (x int, y int);".write(toFile: dir + "/001_a.sql", atomically: true, encoding: .utf8)
        try "create table c (x int);".write(toFile: dir + "/003_c.sql", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try migrate(conn, dir) { $0.standIn = false }) { e in
            let msg = "\(e)"
            XCTAssertTrue(e is ConfigurationError)
            XCTAssertTrue(msg.hasPrefix(dir + "/001_a.sql: changed since it was applied"), msg)
            XCTAssertTrue(msg.contains("--allow-changed"))
        }
        XCTAssertEqual(try count(conn, "select count(*)::int from pg_tables where tablename = 'c'"), 0)
        let r = try migrate(conn, dir) {
            $0.standIn = false
            $0.allowChanged = true
        }
        XCTAssertEqual(r.applied.map(\.name), ["003_c"])
    }

    func testBrokenFileReportsLineColumnAndLeavesNothingHalfApplied() throws {
        let conn = try database()
        let dir = try folder([
            "001_ok.sql": "create table ok1 (x int);",
            "002_bad.sql": "create table half (x int);\ninsert into half values (1);\n  select x frm half;\n",
            "003_later.sql": "create table later (x int);",
        ])
        XCTAssertThrowsError(try migrate(conn, dir) { $0.standIn = false }) { e in
            guard let m = e as? MigrationError else { return XCTFail("\(e)") }
            // "frm" is an alias; "half" is the error
            XCTAssertEqual(m.location, SourceLocation(file: dir + "/002_bad.sql", line: 3, column: 16))
            XCTAssertEqual(m.error.sqlState, "42601")
            XCTAssertTrue("\(m)".hasPrefix(dir + "/002_bad.sql:3:16: syntax error"), "\(m)")
        }
        XCTAssertEqual(try count(conn, "select count(*)::int from pg_tables where tablename in ('half', 'later')"), 0)
        XCTAssertEqual(try count(conn, "select count(*)::int from pg_tables where tablename = 'ok1'"), 1)
        XCTAssertEqual(try count(conn, "select count(*)::int from rlskit.migrations"), 1)
    }

    func testErrorWithoutPositionPointsAtTheFailingStatement() throws {
        let conn = try database()
        let dir = try folder([
            "001_div.sql":
                "create table d (x int);\n\ninsert into d values (1);\n-- comment\ninsert into d values (1/0);\n"
        ])
        XCTAssertThrowsError(try migrate(conn, dir) { $0.standIn = false }) { e in
            let m = e as! MigrationError
            XCTAssertEqual(m.error.sqlState, "22012")
            XCTAssertEqual(m.location.line, 5)
        }
    }

    func testErrorInsideADoBlockPointsAtItsLine() throws {
        let conn = try database()
        let dir = try folder([
            "001_do.sql": "select 1;\n\ndo $body$\nbegin\n  perform 1;\n  perform nothing_here();\nend $body$;\n"
        ])
        XCTAssertThrowsError(try migrate(conn, dir) { $0.standIn = false }) { e in
            let m = e as! MigrationError
            XCTAssertEqual(m.error.sqlState, "42883")
            XCTAssertEqual(m.location.line, 6, "\(m)")
        }
    }

    func testWrappingBeginCommitIsAcceptedButInnerTransactionControlIsRefused() throws {
        let conn = try database()
        let ok = try folder(["001_wrapped.sql": "BEGIN;\ncreate table w (x int);\nCOMMIT;\n"])
        XCTAssertEqual(try migrate(conn, ok) { $0.standIn = false }.applied.count, 1)
        let bad = try folder([
            "001_wrapped.sql": "BEGIN;\ncreate table w (x int);\nCOMMIT;\n",
            "002_mid.sql": "create table m (x int);\ncommit;\ncreate table n (x int);",
        ])
        XCTAssertThrowsError(try migrate(conn, bad) { $0.standIn = false }) { e in
            XCTAssertTrue("\(e)".hasPrefix(bad + "/002_mid.sql:2: 'commit' controls the transaction"), "\(e)")
        }
        let meta = try folder(["001_meta.sql": "select 1;\n\\set x 1\n"])
        XCTAssertThrowsError(try migrate(conn, meta) { $0.standIn = false }) { e in
            XCTAssertTrue("\(e)".hasPrefix(meta + "/001_meta.sql:2: psql meta-command"), "\(e)")
        }
    }

    func testNoTransactionHeaderRunsConcurrentIndex() throws {
        let conn = try database()
        let dir = try folder([
            "001_t.sql": "create table big (x int);",
            "002_idx.sql": "-- rlskit:no-transaction\ncreate index concurrently big_x on big (x);\n",
        ])
        XCTAssertEqual(try migrate(conn, dir) { $0.standIn = false }.applied.count, 2)
        let noHeader = try folder([
            "001_t.sql": "create table big (x int);", "003_idx.sql": "create index concurrently big_y on big (x);",
        ])
        XCTAssertThrowsError(try migrate(conn, noHeader) { $0.standIn = false }) { e in
            XCTAssertTrue("\(e)".contains("rlskit:no-transaction"), "\(e)")
            XCTAssertEqual((e as? MigrationError)?.error.sqlState, "25001")
        }
    }

    func testDryRunChangesNothing() throws {
        let conn = try database()
        let dir = try folder(["001_a.sql": "create table a (x int);"])
        let r = try migrate(conn, dir) { $0.dryRun = true }
        XCTAssertEqual(r.plan.map(\.status), [.pending])
        XCTAssertEqual(try count(conn, "select count(*)::int from pg_tables where tablename = 'a'"), 0)
        XCTAssertNil(try conn.query("select to_regclass('auth.users')::text as t").rows[0].decode("t") as String?)
    }

    func testLockTimeoutWhileAnotherApplyRuns() throws {
        let conn = try database()
        let dbName: String = try conn.query("select current_database() as d").rows[0].decode("d")
        var opts = try TestServer.connectionString.options()
        opts["dbname"] = dbName
        let other = try PostgresConnection(
            ConnectionString(opts.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")))
        try other.query("select pg_advisory_lock($1)", [Int64(0x726c_736b_6974)])
        let dir = try folder(["001_a.sql": "create table a (x int);"])
        let started = Date()
        XCTAssertThrowsError(
            try migrate(conn, dir) {
                $0.lockTimeout = 0.3
                $0.standIn = false
            }
        ) { e in
            XCTAssertTrue("\(e)".contains("another rlskit apply holds the migration lock"), "\(e)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    /// Four concurrent runs: each migration applied exactly once, none fails.
    func testConcurrentApplyAppliesEachMigrationOnce() throws {
        let db = try TestServer.makeDatabase(prefix: "conc")
        dbs.append(db.name)
        let dir = try folder([
            "001_a.sql": "create table a (x int); select pg_sleep(0.2);",
            "002_b.sql": "create table b (x int); insert into a values (1);",
            "003_c.sql": "create table c (x int); select pg_sleep(0.1);",
        ])
        let errors = Mutex<[String]>([])
        let applied = Mutex<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let conn = try PostgresConnection(db.connectionString)
                let o = Migrator.Options()
                let r = try Migrator(conn, source: .directory(dir), options: o).run()
                applied.withLock { $0 += r.applied.count }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(errors.withLock { $0 }, [])
        XCTAssertEqual(applied.withLock { $0 }, 3)
        let conn = try PostgresConnection(db.connectionString)
        XCTAssertEqual(try count(conn, "select count(*)::int from rlskit.migrations"), 3)
        XCTAssertEqual(try count(conn, "select count(*)::int from a"), 1)
        XCTAssertEqual(
            try count(conn, "select count(*)::int from rlskit.stand_in"), BuiltInSQL.files(in: "compat").count)
    }
}

extension MigratorTests {
    func testTransactionControlHiddenBehindCommentsIsRefusedAndSavepointsAreFine() throws {
        let conn = try database()
        let hidden = try folder(["001_h.sql": "create table h1 (x int);\ncommit/* done */;\ncreate table h2 (x int);"])
        XCTAssertThrowsError(try migrate(conn, hidden) { $0.standIn = false }) { e in
            XCTAssertTrue("\(e)".contains("001_h.sql:2: 'commit/* done */' controls the transaction"), "\(e)")
        }
        XCTAssertEqual(try count(conn, "select count(*)::int from pg_tables where tablename like 'h_'"), 0)
        let fine = try folder([
            "001_sp.sql":
                "create table s1 (x int);\nsavepoint a;\ninsert into s1 values (1);\nrollback work to savepoint a;\nrelease savepoint a;",
            "002_atomic.sql": "create function two() returns int language sql begin atomic select 1; select 2; end;",
        ])
        XCTAssertEqual(try migrate(conn, fine) { $0.standIn = false }.applied.count, 2)
        XCTAssertEqual(try count(conn, "select two()"), 2)
        XCTAssertEqual(try count(conn, "select count(*)::int from s1"), 0)
    }
}
