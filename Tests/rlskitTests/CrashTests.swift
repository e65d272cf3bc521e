import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Faults: a killed apply leaves no half-applied migration, and a rerun completes the work.
final class CrashTests: XCTestCase {
    func testKill9DuringAMigrationThenRerunEndsFullyApplied() throws {
        let db = try TestServer.makeDatabase(prefix: "crash")
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "create table first (x int);".write(toFile: dir + "/001_first.sql", atomically: true, encoding: .utf8)
        try
            "create table slow (x int);\ninsert into slow values (1);\nselect pg_sleep(1.5);\ncreate table after_sleep (x int);"
            .write(toFile: dir + "/002_slow.sql", atomically: true, encoding: .utf8)
        try "create table third (x int);".write(toFile: dir + "/003_third.sql", atomically: true, encoding: .utf8)
        let conn = try PostgresConnection(db.connectionString)
        let (p, _, _) = try CLI.start([
            "apply", "--database-url", db.connectionString.raw, "--dir", dir, "--no-stand-in",
        ])
        // Wait until the slow migration is running, then kill the client outright.
        let deadline = Date().addingTimeInterval(20)
        var sawSleep = false
        while Date() < deadline, !sawSleep {
            sawSleep =
                try conn.query(
                    "select count(*)::int from pg_stat_activity where query like '%pg_sleep(1.5)%' and pid <> pg_backend_pid()"
                ).rows[0].decode(0) as Int > 0
            if !sawSleep { usleep(10_000) }
        }
        XCTAssertTrue(sawSleep, "the slow migration never started")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        func tables() throws -> [String] {
            try conn.query("select tablename::text from pg_tables where schemaname = 'public' order by 1").rows.map {
                try $0.decode(0)
            }
        }
        func ledger() throws -> [String] {
            try conn.query("select version from rlskit.migrations order by 1").rows.map { try $0.decode(0) }
        }
        // The killed run's transaction never commits: wait for its backend to go away.
        for _ in 0..<500 {
            let busy: Int = try conn.query(
                "select count(*)::int from pg_stat_activity where query like '%pg_sleep(1.5)%' and pid <> pg_backend_pid()"
            ).rows[0].decode(0)
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

extension CrashTests {
    /// The server stops abruptly during `rlskit test`: exit 3 with one clear line; after a
    /// restart the same run passes.
    func testServerStoppedDuringTestThenRerunPasses() throws {
        let cluster = try LocalCluster()
        defer { cluster.stop() }
        let conn = try PostgresConnection(cluster.connectionString)
        _ = try Migrator(conn, source: .builtIn, options: Migrator.Options()).run()
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "scenario a slow step\n  as admin: select pg_sleep(3)\n    expect ok\n".write(
            toFile: dir + "/slow.scenario", atomically: true, encoding: .utf8)
        let (p, _, errPipe) = try CLI.start(["test", "--database-url", cluster.connectionString.raw, dir])
        let deadline = Date().addingTimeInterval(20)
        var sleeping = false
        while Date() < deadline, !sleeping {
            sleeping =
                try conn.query(
                    "select count(*)::int from pg_stat_activity where query like '%pg_sleep(3)%' and pid <> pg_backend_pid()"
                ).rows[0].decode(0) as Int > 0
            if !sleeping { usleep(10_000) }
        }
        XCTAssertTrue(sleeping)
        let pidText = try String(contentsOfFile: cluster.directory + "/data/postmaster.pid", encoding: .utf8)
        let pid = Int32(pidText.split(separator: "\n")[0])!
        kill(pid, SIGQUIT)  // immediate shutdown, as if the server crashed
        p.waitUntilExit()
        let stderr = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 3, stderr)
        let lines = stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, stderr)
        XCTAssertTrue(lines.first?.hasPrefix("rlskit: ") ?? false, stderr)
        XCTAssertTrue(stderr.hasPrefix("rlskit: lost the connection to postgres on a local socket while"), stderr)

        // Restart the same data directory and run again: it passes.
        for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
        let bin = try LocalCluster.findBinDirectory()
        let restart = Process()
        restart.executableURL = URL(fileURLWithPath: geteuid() == 0 ? "/usr/bin/setpriv" : bin + "/postgres")
        restart.arguments =
            (geteuid() == 0 ? ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", bin + "/postgres"] : [])
            + ["-D", cluster.directory + "/data", "-c", "config_file=" + cluster.directory + "/postgresql.conf"]
        restart.standardOutput = FileHandle.nullDevice
        restart.standardError = FileHandle.nullDevice
        try restart.run()
        defer {
            kill(restart.processIdentifier, SIGQUIT)
            restart.waitUntilExit()
        }
        var up = false
        for _ in 0..<1000 where !up {
            up = (try? PostgresConnection(cluster.connectionString)) != nil
            if !up { usleep(10_000) }
        }
        XCTAssertTrue(up)
        try "scenario quick\n  as admin: select 1\n    expect value 1\n".write(
            toFile: dir + "/slow.scenario", atomically: true, encoding: .utf8)
        let rerun = try CLI.run(["test", "--database-url", cluster.connectionString.raw, dir])
        XCTAssertEqual(rerun.code, 0, rerun.output)
    }
}
