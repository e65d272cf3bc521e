import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// `--jobs` after a setup file: the files between setup and teardown spread over connections
/// that ran the setup again, and the verdicts are those of one job.
final class PgTAPJobsAfterSetupTests: XCTestCase {
    static let projectSQL = """
        create extension pgtap;
        create table public.job_notes (
          id bigint generated always as identity primary key,
          owner_id uuid not null references auth.users (id),
          body text not null
        );
        alter table public.job_notes enable row level security;
        grant select on public.job_notes to authenticated;
        create policy "own rows" on public.job_notes for select to authenticated
          using ((select auth.uid()) = owner_id);

        """

    func suite(setup: String) throws -> String {
        let dir = try CLI.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try
            (setup
            + "select tests.create_supabase_user('alice');\n"
            + "insert into public.job_notes (owner_id, body) values (tests.get_supabase_uid('alice'), 'kept');\n"
            + "select plan(1);\nselect pass('setup');\n")
            .write(toFile: dir + "/00-setup.sql", atomically: true, encoding: .utf8)
        for n in 1...6 {
            let last =
                switch n {
                case 3: "select ok(false, 'fails on purpose');"
                case 5: "select * from public.no_such_table;"
                default: "select ok(true, 'fine');"
                }
            try """
            begin;
            select plan(2);
            select diag('pid ' || pg_backend_pid());
            -- Long enough for the other connections to open and replay the setup under load:
            -- otherwise the first one may take every file before they are ready.
            select pg_sleep(0.1);
            select tests.authenticate_as('alice');
            select is((select count(*)::int from public.job_notes), 1, 'alice sees the kept note');
            \(last)
            select * from finish();
            rollback;

            """.write(toFile: dir + "/0\(n)-uses.sql", atomically: true, encoding: .utf8)
        }
        try """
        delete from public.job_notes;
        delete from auth.users where raw_user_meta_data ->> 'test_identifier' = 'alice';
        select plan(1);
        select is((select count(*)::int from public.job_notes), 0, 'the teardown sees the setup');

        """.write(toFile: dir + "/99-teardown.sql", atomically: true, encoding: .utf8)
        return dir
    }

    func verdicts(_ r: PgTAPRunResult) -> [String] {
        r.files.map { "\(($0.file as NSString).lastPathComponent) \($0.passed) \($0.summary.tests.count)" }
    }

    func testFilesBetweenSetupAndTeardownSpread() throws {
        let db = try PgTAPFixtures.standInDatabase(extraSQL: Self.projectSQL + SupabaseTestHelpers.installSQL())
        defer { TestServer.drop(db.name) }
        let before = try PgTAPFixtures.snapshot(PostgresConnection(db.connectionString))
        let files = try PgTAPRunner.discover([try suite(setup: "")])
        let one = try PgTAPRunner(connection: db.connectionString).run(files)
        let four = try PgTAPRunner(connection: db.connectionString, jobs: 4).run(files)
        XCTAssertEqual(
            verdicts(one), verdicts(four), "\(one.files.map { "\($0.malformed) \(String(describing: $0.sqlError))" })")
        XCTAssertEqual(
            verdicts(one),
            [
                "00-setup.sql true 1", "01-uses.sql true 2", "02-uses.sql true 2", "03-uses.sql false 2",
                "04-uses.sql true 2", "05-uses.sql false 1", "06-uses.sql true 2", "99-teardown.sql true 1",
            ])
        let pids = Set(four.files.compactMap { $0.summary.diagnostics.first { $0.contains("pid ") } })
        XCTAssertGreaterThan(pids.count, 1, "the six files ran on several connections")
        let onePids = Set(one.files.compactMap { $0.summary.diagnostics.first { $0.contains("pid ") } })
        XCTAssertEqual(onePids.count, 1)
        XCTAssertTrue(
            four.notes.contains {
                $0.hasPrefix(
                    "--jobs 4: files that keep their work (setup, teardown) ran in name order on one connection")
            }, four.notes.joined(separator: "\n"))
        XCTAssertEqual(try PgTAPFixtures.snapshot(PostgresConnection(db.connectionString)), before)
    }

    /// A setup that creates a function: running it again beside the first connection would wait
    /// for that connection, so the files run in order there, with the same verdicts.
    func testASetupOthersWouldWaitForRunsInOrder() throws {
        let db = try PgTAPFixtures.standInDatabase(extraSQL: Self.projectSQL + SupabaseTestHelpers.installSQL())
        defer { TestServer.drop(db.name) }
        let files = try PgTAPRunner.discover([
            try suite(setup: "create function public.job_helper() returns int language sql as 'select 1';\n")
        ])
        let one = try PgTAPRunner(connection: db.connectionString).run(files)
        let three = try PgTAPRunner(connection: db.connectionString, jobs: 3).run(files)
        XCTAssertEqual(verdicts(one), verdicts(three))
        let pids = Set(three.files.compactMap { $0.summary.diagnostics.first { $0.contains("pid ") } })
        XCTAssertEqual(pids.count, 1)
        XCTAssertTrue(
            three.notes.contains { $0.hasPrefix("--jobs 3: files after ") && $0.contains("ran one at a time") },
            three.notes.joined(separator: "\n"))
    }
}
