import Foundation
import Postgres
import Synchronization
import TestSupport
import XCTest

/// Sequences on a database rlskit does not own are never put back (that could reissue an id
/// another client holds): the run reports how far each advanced. The throwaway is reset.
final class SequenceCLITests: XCTestCase {
    var tests: String { OurSchema.root + "/sql/tests" }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testUserDatabaseSequencesAreReportedNotReset() throws {
        let db = try OurSchema.makeDatabase(extra: "create sequence public.tickets;")
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A sequence that feeds no column, taken in a step: same rule.
        try "scenario takes a ticket\n  as admin: select nextval('public.tickets')\n    expect ok\n"
            .write(toFile: dir + "/t.scenario", atomically: true, encoding: .utf8)
        let conn = try PostgresConnection(db.connectionString)
        func next(_ s: String) throws -> Int {
            try conn.query("select (case when is_called then last_value + 1 else last_value end)::int from \(s)").rows[
                0
            ].decode(0)
        }
        let postsBefore = try next("public.posts_id_seq")

        let r = try CLI.run(["test", "--database-url", db.connectionString.raw, "--format", "json", tests, dir])
        XCTAssertEqual(r.code, 0, r.output)
        let sequences = try XCTUnwrap(try json(r.stdout)["sequences"] as? [[String: Any]], r.stdout)
        let byName = Dictionary(uniqueKeysWithValues: sequences.map { ($0["sequence"] as! String, $0) })
        let posts = try XCTUnwrap(byName["public.posts_id_seq"], "\(sequences)")
        XCTAssertEqual(posts["reset"] as? Bool, false)
        let advanced = try XCTUnwrap(posts["advancedBy"] as? Int)
        XCTAssertGreaterThan(advanced, 0)
        XCTAssertEqual(try next("public.posts_id_seq"), postsBefore + advanced, "left where the run moved it")
        XCTAssertEqual(byName["public.tickets"]?["advancedBy"] as? Int, 1)
        XCTAssertEqual(try next("public.tickets"), 2)

        let text = try CLI.run(["test", "--database-url", db.connectionString.raw, dir])
        XCTAssertEqual(text.code, 0, text.output)
        XCTAssertTrue(
            text.stdout.contains(
                "note: sequences advanced by the run, left as they are (gaps are harmless; resetting could hand an id out twice): public.tickets +1\n"
            ), text.stdout)
    }

    func testThrowawaySequencesAreReset() throws {
        let r = try CLI.run(["test", "--format", "json"], directory: OurSchema.root)
        XCTAssertEqual(r.code, 0, r.output)
        let sequences = try XCTUnwrap(try json(r.stdout)["sequences"] as? [[String: Any]], r.stdout)
        XCTAssertFalse(sequences.isEmpty)
        XCTAssertTrue(sequences.allSatisfy { $0["reset"] as? Bool == true }, "\(sequences)")
        XCTAssertFalse(r.output.contains("left as they are"), r.output)
    }

    /// Two writers opening a new connection per insert while `rlskit test` runs again and again.
    func testWritersDuringTestRunsNeverGetADuplicateKey() throws {
        let db = try OurSchema.makeDatabase()
        defer { TestServer.drop(db.name) }
        let setup = try PostgresConnection(db.connectionString)
        let user: String = try setup.query(
            "insert into auth.users (id, email) values (gen_random_uuid(), 'w@example.com') returning id::text"
        ).rows[0].decode(0)
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        let inserts = Atomic<Int>(0)
        let writers = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: writers) {
                while !stop.load(ordering: .relaxed) {
                    do {
                        let c = try PostgresConnection(db.connectionString)
                        try c.query(
                            "insert into public.posts (author_id, image_path) values ($1::uuid, $1 || '/w.png')", [user]
                        )
                        inserts.add(1, ordering: .relaxed)
                    } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
        }
        for _ in 0..<6 {
            let r = try CLI.run(["test", "--database-url", db.connectionString.raw, tests + "/access.rls"])
            XCTAssertEqual(r.code, 0, r.output)
        }
        stop.store(true, ordering: .relaxed)
        writers.wait()
        XCTAssertGreaterThan(inserts.load(ordering: .relaxed), 0)
        XCTAssertEqual(failures.withLock { $0 }, [])
    }
}
