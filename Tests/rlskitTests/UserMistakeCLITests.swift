import Foundation
import Postgres
import TestSupport
import XCTest

/// Mistakes in users' files as a user meets them: one `file:line` line, exit 2, nothing run.
final class UserMistakeCLITests: XCTestCase {
    func testMistakesInTestFilesExit2WithOneLine() throws {
        let db = try Provisioned.database(prefix: "review")
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let posts =
            "table public.posts\n  owner author_id\n  read anyone\n  write owner\n  seed image_path = '{owner}/x-{n}.png'\n"
        let cases: [(String, String, String)] = [
            ("empty.rls", "# nothing declared yet\nexpose public\n", "empty.rls:1: "),
            ("expose.rls", "expose public nosuchschema\n" + posts, "expose.rls:1: schema nosuchschema does not exist"),
            (
                "owner.rls", "table public.posts\n  owner caption\n  read anyone\n  write owner\n",
                "owner.rls:2: owner column caption of public.posts is text"
            ),
            ("seed.rls", posts + "  seed nosuch = 1\n", "seed.rls:6: "),
            (
                "quote.rls",
                "table public.posts\n  owner author_id\n  read anyone\n  write owner\n  seed image_path = 'unterminated\n",
                "quote.rls:5: "
            ),
            ("twice.rls", posts + "  read owner\n", "twice.rls:6: 'read' is already set at line 3"),
            (
                "bob.scenario", "scenario s\n  user alice\n  as alice: select '{bob}'\n    expect ok\n",
                "bob.scenario:3: unknown placeholder {bob}"
            ),
            (
                "two.scenario", "scenario s\n  as admin: select 1; select 2\n    expect ok\n",
                "two.scenario:2: one statement per step"
            ),
            (
                "commit.scenario",
                "scenario s\n  as admin: select 1\n    expect ok\n  as admin: commit\n    expect ok\n",
                "commit.scenario:4: 'commit' controls the transaction"
            ),
        ]
        for (name, text, first) in cases {
            let path = dir + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try CLI.run(["test", "--database-url", db.connectionString.raw, path])
            XCTAssertEqual(r.code, 2, "\(name): \(r.output)")
            XCTAssertEqual(r.stdout, "", "\(name): nothing runs")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: " + path.dropLast(name.count) + first), "\(name): \(r.stderr)")
        }
    }

    func testAuditOfMissingSchemasExits2() throws {
        let db = try Provisioned.database(prefix: "reviewaudit")
        defer { TestServer.drop(db.name) }
        let r = try CLI.run(["audit", "--database-url", db.connectionString.raw, "--exposed-schemas", "nosuch"])
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("nosuch"), r.stderr)
        let lock = dir() + "/p.lock"
        try "# rlskit policy lock, format 1\n\ntable public.posts\n  row level security: maybe\n".write(
            toFile: lock, atomically: true, encoding: .utf8)
        let diff = try CLI.run(["diff", lock, "--database-url", db.connectionString.raw])
        XCTAssertEqual(diff.code, 2, diff.output)
        XCTAssertTrue(diff.stderr.hasPrefix("rlskit: \(lock):4: row level security must be on or off"), diff.stderr)
        XCTAssertFalse(diff.stdout.contains("WIDENING"), diff.stdout)
    }

    func dir() -> String {
        let d = NSTemporaryDirectory() + "rlskit-review-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }
}
