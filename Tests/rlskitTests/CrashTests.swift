import Foundation
import Postgres
import TestSupport
import XCTest

/// Faults: a killed apply leaves no half-applied migration, and a rerun completes the work.
final class CrashTests: XCTestCase {
    func testKill9DuringAMigrationThenRerunEndsFullyApplied() throws {
        let db = try TestServer.makeDatabase(prefix: "crash")
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "create table first (x int);".write(toFile: dir + "/001_first.sql", atomically: true, encoding: .utf8)
        try "create table slow (x int);\ninsert into slow values (1);\nselect pg_sleep(1.5);\ncreate table after_sleep (x int);"
            .write(toFile: dir + "/002_slow.sql", atomically: true, encoding: .utf8)
        try "create table third (x int);".write(toFile: dir + "/003_third.sql", atomically: true, encoding: .utf8)
        let conn = try PostgresConnection(db.connectionString)
        let (p, _, _) = try CLI.start(["apply", "--database-url", db.connectionString.raw, "--dir", dir, "--no-stand-in"])
        // Wait until the slow migration is running, then kill the client outright.
        let deadline = Date().addingTimeInterval(20)
        var sawSleep = false
        while Date() < deadline, !sawSleep {
            sawSleep = try conn.query("select count(*)::int from pg_stat_activity where query like '%pg_sleep(1.5)%' and pid <> pg_backend_pid()").rows[0].decode(0) as Int > 0
            if !sawSleep { usleep(10_000) }
        }
        XCTAssertTrue(sawSleep, "the slow migration never started")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        func tables() throws -> [String] {
            try conn.query("select tablename::text from pg_tables where schemaname = 'public' order by 1").rows.map { try $0.decode(0) }
        }
        func ledger() throws -> [String] {
            try conn.query("select version from rlskit.migrations order by 1").rows.map { try $0.decode(0) }
        }
        // The killed run's transaction never commits: wait for its backend to go away.
        for _ in 0..<500 {
            let busy: Int = try conn.query("select count(*)::int from pg_stat_activity where query like '%pg_sleep(1.5)%' and pid <> pg_backend_pid()").rows[0].decode(0)
            if busy == 0 { break }
            usleep(10_000)
        }
        XCTAssertEqual(try tables(), ["first"])
        XCTAssertEqual(try ledger(), ["001"])
        let rerun = try CLI.run(["apply", "--database-url", db.connectionString.raw, "--dir", dir, "--no-stand-in"])
        XCTAssertEqual(rerun.code, 0, rerun.output)
        XCTAssertEqual(try tables(), ["after_sleep", "first", "slow", "third"])
        XCTAssertEqual(try ledger(), ["001", "002", "003"])
        XCTAssertEqual(try conn.query("select count(*)::int from slow").rows[0].decode(0) as Int, 1)
    }
}
