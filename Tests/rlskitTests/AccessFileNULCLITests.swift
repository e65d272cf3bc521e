import Foundation
import Postgres
import TestSupport
import XCTest

/// A NUL byte in an access file, wherever it is, is the user's mistake at its line (exit 2),
/// found before anything reaches the server (which would refuse it: exit 3, no file:line).
final class AccessFileNULCLITests: ScratchTestCase {
    func testANulByteIsOneLineAtItsPlaceWithExit2() throws {
        let db = try StandIn.makeDatabase(prefix: "nul")
        dbs.append(db.name)
        _ = try db.conn.runScript(
            """
            create table public.notes (id bigint primary key, user_id uuid references auth.users (id));
            alter table public.notes enable row level security;
            """)
        let block = "  owner user_id\n  read owner\n  write owner\n"
        let cases: [(String, String, String)] = [
            // The review's example: a quoted table name holding a NUL.
            ("name.rls", "table public.\"no\u{0}tes\"\n" + block, ":1: contains a NUL byte (column 17)"),
            // A seed expression, which would be sent as SQL.
            ("seed.rls", "table public.notes\n" + block + "  seed id = 1\u{0}\n", ":5: contains a NUL byte"),
            // A comment, which nothing reads.
            ("comment.rls", "# notes\u{0}\ntable public.notes\n" + block, ":1: contains a NUL byte"),
        ]
        for (name, text, message) in cases {
            let dir = try folder([name: text])
            let r = try CLI.run(["test", "--database-url", db.connectionString.raw, dir + "/" + name])
            XCTAssertEqual(r.code, 2, "\(name): \(r.output)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: \(dir)/\(name)\(message)"), "\(name): \(r.stderr)")
        }
    }
}
