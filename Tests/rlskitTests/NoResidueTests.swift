import Foundation
import Postgres
import RLSKit
import TestSupport
import XCTest

/// A full dump of the database (all schemas, data included) is the same before and after
/// `rlskit test` and `rlskit pgtap`: when checks pass, when they fail, and when interrupted.
/// Sequence positions are the one exception: on a database rlskit does not own they are
/// left advanced (and reported), since putting them back could reissue another client's id.
final class NoResidueTests: XCTestCase {
    func dump(_ db: ConnectionString) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try LocalCluster.findBinDirectory() + "/pg_dump")
        p.arguments = ["--no-sync", "-d", db.raw]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        // Newer pg_dump guards its output with a random \restrict key: not part of the data.
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }.joined(separator: "\n")
    }

    func waitForOtherSessions(_ conn: PostgresConnection) throws {
        for _ in 0..<500 {
            let n: Int = try conn.query(
                "select count(*)::int from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'"
            ).rows[0].decode(0)
            if n == 0 { return }
            usleep(10_000)
        }
    }

    func testNothingRemains() throws {
        let db = try Provisioned.database(prefix: "residue")
        defer { TestServer.drop(db.name) }
        let tests = Provisioned.repositoryRoot + "/sql/tests"
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Intent stricter than the schema: every read check of profiles fails.
        try "table public.profiles\n  owner id\n  read owner\n  write owner\n  delete nobody\n".write(
            toFile: dir + "/strict.rls", atomically: true, encoding: .utf8)
        try
            "select plan(2);\nselect tests.create_supabase_user('x');\ninsert into public.posts (author_id, image_path) values (tests.get_supabase_uid('x'), tests.get_supabase_uid('x') || '/a.png');\nselect ok(false, 'fails');\nselect ok(true);\n"
            .write(toFile: dir + "/t.sql", atomically: true, encoding: .utf8)
        let before = try dump(db.connectionString)
        XCTAssertTrue(before.contains("CREATE TABLE public.posts"))

        let pass = try CLI.run(["test", "--database-url", db.connectionString.raw, tests])
        XCTAssertEqual(pass.code, 0, pass.output)
        XCTAssertEqual(
            Self.withoutSequenceValues(try dump(db.connectionString)), Self.withoutSequenceValues(before),
            "after a passing run")

        let fail = try CLI.run(["test", "--database-url", db.connectionString.raw, dir + "/strict.rls"])
        XCTAssertEqual(fail.code, 1, fail.output)
        XCTAssertEqual(
            Self.withoutSequenceValues(try dump(db.connectionString)), Self.withoutSequenceValues(before),
            "after a failing run")

        let tap = try CLI.run(["pgtap", "--database-url", db.connectionString.raw, dir + "/t.sql"])
        XCTAssertEqual(tap.code, 1, tap.output)
        XCTAssertEqual(
            Self.withoutSequenceValues(try dump(db.connectionString)), Self.withoutSequenceValues(before),
            "after a pgTAP run")
        XCTAssertTrue(
            tap.stdout.contains(
                "left as they are (gaps are harmless; resetting could hand an id out twice): public.posts_id_seq +1"),
            tap.stdout)

        let conn = try PostgresConnection(db.connectionString)
        for (signal, delay) in [(SIGTERM, 0.05), (SIGKILL, 0.1), (SIGINT, 0.02)] {
            let (p, _, _) = try CLI.start(["test", "--database-url", db.connectionString.raw, "--jobs", "2", tests])
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, signal)
            p.waitUntilExit()
            try waitForOtherSessions(conn)
            let after = try dump(db.connectionString)
            // The rows are never left, whenever the signal lands.
            XCTAssertEqual(
                Self.withoutSequenceValues(after), Self.withoutSequenceValues(before), "after signal \(signal)")
        }
    }

    static func withoutSequenceValues(_ dump: String) -> String {
        dump.split(separator: "\n").filter { !$0.hasPrefix("SELECT pg_catalog.setval(") }.joined(separator: "\n")
    }
}
