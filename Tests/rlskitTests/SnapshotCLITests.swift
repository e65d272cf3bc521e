import Foundation
import Postgres
import TestSupport
import XCTest

final class SnapshotCLITests: XCTestCase {
    func testSnapshotThenDiffGatesWidening() throws {
        let db = try StandIn.makeDatabase(prefix: "clisnap")
        defer { TestServer.drop(db.name) }
        try StandIn.installMigrations(db.conn)
        let url = db.connectionString.raw
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lock = dir + "/policy.lock"

        let snap = try CLI.run(["snapshot", "--database-url", url, "--output", lock])
        XCTAssertEqual(snap.code, 0, snap.output)
        XCTAssertTrue(snap.stdout.hasPrefix("wrote \(lock): 6 tables, 11 policies"), snap.stdout)
        let stdoutCopy = try CLI.run(["snapshot", "--database-url", url])
        XCTAssertEqual(stdoutCopy.stdout, try String(contentsOfFile: lock, encoding: .utf8))

        let same = try CLI.run(["diff", lock, "--database-url", url])
        XCTAssertEqual(same.code, 0, same.output)
        XCTAssertEqual(same.stdout, "no changes\n")

        try db.conn.query("alter table public.posts disable row level security")
        try db.conn.query("drop policy \"Users delete their own posts\" on public.posts")
        let changed = try CLI.run(["diff", lock, "--database-url", url])
        XCTAssertEqual(changed.code, 1, changed.output)
        XCTAssertTrue(
            changed.stdout.contains("WIDENING  table public.posts: row level security disabled"), changed.stdout)
        XCTAssertTrue(
            changed.stdout.contains("NARROWING policy \"Users delete their own posts\" on table public.posts: removed"),
            changed.stdout)
        XCTAssertTrue(changed.stdout.contains("1 widening, 1 narrowing, 0 neutral"))
        XCTAssertEqual(changed.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(try CLI.run(["diff", lock, "--database-url", url, "--accept-widening"]).code, 0)

        // Against a second database: the lock's database rebuilt from scratch.
        let other = try StandIn.makeDatabase(prefix: "clisnap2")
        defer { TestServer.drop(other.name) }
        try StandIn.installMigrations(other.conn)
        let against = try CLI.run(["diff", "--database-url", other.connectionString.raw, "--against", url])
        XCTAssertEqual(against.code, 1, against.output)
        XCTAssertTrue(against.stdout.contains("row level security disabled"))
        XCTAssertEqual(try CLI.run(["diff", lock, "--against", other.connectionString.raw]).stdout, "no changes\n")
    }

    func testBadInputsAreOneLineExit2() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bad = dir + "/bad.lock"
        try "# rlskit policy lock, format 1\ntable public.a\n  colour: red\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        for args in [
            ["diff", bad, "--database-url", "host=/nonexistent dbname=x"], ["diff"], ["diff", dir + "/missing.lock"],
            ["snapshot"], ["snapshot", "--database-url", "host=/x", "--output", dir + "/no/such/dir/x.lock"],
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.output)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
        }
        XCTAssertTrue(try CLI.run(["diff", bad, "--database-url", "host=/x"]).stderr.contains("bad.lock:3:"))
    }
}
