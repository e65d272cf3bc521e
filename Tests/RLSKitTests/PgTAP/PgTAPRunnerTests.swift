import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Runs the fixture suites against a real server with the Supabase stand-in.
final class PgTAPRunnerTests: XCTestCase {
    func fixtures() throws -> [(path: String, display: String)] {
        try PgTAPRunner.discover([PgTAPFixtures.dir]).map { ($0.path, ($0.path as NSString).lastPathComponent) }
    }

    func testFixtureVerdictsMatchPgProve() throws {
        let db = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(db.name) }
        let result = try PgTAPRunner(connection: db.connectionString).run(fixtures())
        let ours = Dictionary(uniqueKeysWithValues: result.files.map { ($0.file, $0.passed) })
        let expected = try PgTAPFixtures.expectedVerdicts()
        XCTAssertEqual(Set(ours.keys), Set(expected.map(\.file)), "every fixture has a verdict")
        for e in expected { XCTAssertEqual(ours[e.file], e.passes, e.file) }
        XCTAssertFalse(result.passed)
    }

    func file(_ result: PgTAPRunResult, _ name: String) throws -> PgTAPFileResult {
        try XCTUnwrap(result.files.first { $0.file == name }, name)
    }

    func testReportsSayWhatWentWrongAndWhere() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let r = try PgTAPRunner(connection: db.connectionString).run(fixtures())

        let fail = try file(r, "02-fail.sql")
        let bad = try XCTUnwrap(fail.outcomes.first { $0.status == .failed })
        XCTAssertEqual(bad.name, "2 - arithmetic is wrong on purpose")
        XCTAssertEqual(bad.location?.description, "02-fail.sql:5:1")
        XCTAssertTrue(bad.message?.contains("have: 4") ?? false, bad.message ?? "")

        XCTAssertEqual(try file(r, "03-no-plan.sql").summary.problems.count, 1)
        XCTAssertEqual(try file(r, "04-too-many.sql").summary.problems, ["planned 2 tests but ran 3"])
        XCTAssertEqual(try file(r, "05-too-few.sql").summary.problems, ["planned 4 tests but ran 2"])

        let skip = try file(r, "06-skip-todo.sql").outcomes.map(\.status)
        XCTAssertEqual(skip, [.passed, .skipped, .todo, .passed])

        let err = try XCTUnwrap(try file(r, "07-sql-error.sql").sqlError)
        XCTAssertEqual(err.location.description, "07-sql-error.sql:6:8", "statement line plus the error position")
        XCTAssertTrue(err.message.contains("42P01"))
        XCTAssertEqual(try file(r, "07-sql-error.sql").summary.tests.count, 1, "the file stopped at the error")

        let typo = try file(r, "09-meta-typo.sql")
        XCTAssertEqual(typo.malformed.map(\.location.description), ["09-meta-typo.sql:4:1"])
        XCTAssertTrue(r.hasMalformed)

        let helpers = try file(r, "11-helpers.sql")
        XCTAssertTrue(
            helpers.passed,
            helpers.outcomes.filter(\.isFailure).map { "\($0.name) \($0.message ?? "")" }.joined(separator: "\n"))
        XCTAssertEqual(helpers.summary.tests.count, 15)
        XCTAssertEqual(try file(r, "10-include.sql").summary.tests.count, 2)

        // A missing include fails its file at the `\i` line, after what ran before it.
        let missing = try file(r, "18-include-missing.sql")
        XCTAssertEqual(missing.malformed, [])
        XCTAssertEqual(missing.sqlError?.location.description, "18-include-missing.sql:5:1")
        XCTAssertEqual(missing.summary.tests.count, 1)
        XCTAssertFalse(missing.passed)
        let nested = try file(r, "19-include-nested-missing.sql")
        XCTAssertEqual(nested.malformed, [])
        XCTAssertTrue(nested.sqlError?.location.file.hasSuffix("_includes_missing.psql") ?? false, "\(nested)")
        XCTAssertEqual(nested.sqlError?.location.line, 3)
    }

    func testNothingPersistsAndPgTAPIsRemovedAgain() throws {
        let db = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try PgTAPFixtures.snapshot(conn)
        XCTAssertFalse(before.contains { $0.hasPrefix("ext pgtap") })
        let r = try PgTAPRunner(connection: db.connectionString).run(fixtures())
        XCTAssertEqual(r.notes.count, 1, "says pgTAP was created per file")
        XCTAssertEqual(try PgTAPFixtures.snapshot(conn), before)
    }

    func testInstalledPgTAPStaysAndJobsGiveTheSameVerdicts() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try PgTAPFixtures.snapshot(conn)
        XCTAssertTrue(before.contains { $0.hasPrefix("ext pgtap") })
        let one = try PgTAPRunner(connection: db.connectionString, jobs: 1).run(fixtures())
        let two = try PgTAPRunner(connection: db.connectionString, jobs: 3).run(fixtures())
        XCTAssertEqual(one.files.map(\.file), two.files.map(\.file), "results stay in name order")
        XCTAssertEqual(one.files.map(\.passed), two.files.map(\.passed))
        XCTAssertEqual(one.files.map(\.summary.tests.count), two.files.map(\.summary.tests.count))
        XCTAssertEqual(one.notes, [])
        XCTAssertEqual(try PgTAPFixtures.snapshot(conn), before)
    }

    func testParallelRunWithoutPgTAPStillWorks() throws {
        let db = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(db.name) }
        let files = try fixtures().filter {
            ["01-pass.sql", "06-skip-todo.sql", "11-helpers.sql"].contains($0.display)
        }
        let r = try PgTAPRunner(connection: db.connectionString, jobs: 2).run(files)
        XCTAssertTrue(r.passed, r.report.outcomes.filter(\.isFailure).map(\.name).joined(separator: "\n"))
        XCTAssertTrue(r.notes.contains { $0.hasPrefix("--jobs 2: files ran one at a time") }, "\(r.notes)")
    }

    func testBailOutStopsTheRun() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let files = try PgTAPRunner.discover([
            PgTAPFixtures.extraDir + "/bail-out.pg", PgTAPFixtures.dir + "/01-pass.sql",
        ])
        let r = try PgTAPRunner(connection: db.connectionString).run(files)
        XCTAssertEqual(r.files.count, 1)
        XCTAssertEqual(r.files[0].summary.bailOut, "the database is not ready")
        XCTAssertEqual(r.notRun, [PgTAPFixtures.dir + "/01-pass.sql"])
        XCTAssertFalse(r.passed)
        XCTAssertTrue(r.report.notes.contains { $0.hasPrefix("not run after the bail-out") })
    }

    func testFileTransactionControlAndSessionStateAreContained() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Autocommit, a committed and a rolled-back transaction, session state, then a second file on the same connection.
        try """
        create table public.t (id int);
        begin;
        insert into public.t values (1);
        commit;
        begin;
        insert into public.t values (2);
        rollback;
        select plan(4);
        select is((select count(*)::int from public.t), 1, 'what psql commits stays, what it rolls back goes');
        set search_path = public, extensions;
        set statement_timeout = '1234s';
        prepare q as select 1;
        set role anon;
        select ok(true, 'as anon');
        reset role;
        select ok(true, 'back');
        select ok(true, 'done');
        """.write(toFile: dir + "/a.sql", atomically: true, encoding: .utf8)
        try """
        select plan(4);
        select is(current_setting('statement_timeout'), '0', 'settings did not leak from a.sql');
        select is(current_setting('search_path'), '"$user", public', 'search_path did not leak');
        select is(current_user::text, session_user::text, 'role did not leak');
        select lives_ok('prepare q as select 2', 'prepared statements did not leak');
        """.write(toFile: dir + "/b.sql", atomically: true, encoding: .utf8)
        try "select plan(1);\nprepare transaction 'x';\n".write(
            toFile: dir + "/c.sql", atomically: true, encoding: .utf8)
        let conn = try PostgresConnection(db.connectionString)
        let before = try PgTAPFixtures.snapshot(conn)
        let r = try PgTAPRunner(connection: db.connectionString).run(PgTAPRunner.discover([dir]))
        XCTAssertTrue(
            r.files[0].passed,
            r.files[0].outcomes.filter(\.isFailure).map { "\($0.name) \($0.message ?? "")" }.joined(separator: "\n"))
        XCTAssertTrue(
            r.files[1].passed,
            r.files[1].outcomes.filter(\.isFailure).map { "\($0.name) \($0.message ?? "")" }.joined(separator: "\n"))
        XCTAssertTrue(r.files[2].sqlError?.message.contains("two-phase") ?? false)
        XCTAssertEqual(try PgTAPFixtures.snapshot(conn), before)
        XCTAssertEqual(
            try conn.query("select count(*)::int as n from pg_prepared_xacts").rows[0].decode("n", as: Int.self), 0)
    }

    func testHelpersSetClaimsAsTheDataAPIDoes() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        begin;
        select plan(9);
        select tests.create_supabase_user('a');
        set request.jwt.claim.sub = '00000000-0000-0000-0000-000000000001';
        select tests.authenticate_as('a');
        select is(auth.uid(), tests.get_supabase_uid('a'), 'a stale legacy claim does not override');
        select ok(current_setting('request.jwt.claims')::jsonb ?& array['sub', 'role', 'aud', 'email', 'phone', 'exp', 'app_metadata', 'user_metadata'], 'claims carry every key');
        select is(auth.jwt() ->> 'aud', 'authenticated', 'aud');
        select is(tests.get_supabase_user('a') ->> 'email', tests.get_supabase_uid('a') || '@test.com', 'default email');
        select tests.authenticate_as_service_role();
        select is(auth.role(), 'service_role', 'service role claim');
        select is(auth.uid(), null, 'no sub for the service role');
        select tests.clear_authentication();
        select is(current_user::text, 'anon', 'anon role');
        reset role;
        create table public.open_table (id int);
        select tests.rls_enabled('public');
        select tests.rls_enabled('public', 'open_table');
        """.write(toFile: dir + "/h.sql", atomically: true, encoding: .utf8)
        let r = try PgTAPRunner(connection: db.connectionString, helpers: .api).run(PgTAPRunner.discover([dir]))
        let statuses = r.files[0].summary.tests.map(\.isOK)
        XCTAssertEqual(
            statuses, [true, true, true, true, true, true, true, false, false],
            r.files[0].outcomes.map { "\($0.name) \($0.message ?? "")" }.joined(separator: "\n"))
        XCTAssertEqual(
            r.files[0].summary.tests[7].description,
            "All tables in the public schema should have row level security enabled")
    }

    func testSignUpTriggersRunAsTheAuthServer() throws {
        // A sign-up trigger that is not SECURITY DEFINER fails on Supabase; it must fail here too.
        let trigger = """
            create table public.profiles (id uuid primary key);
            create function public.on_signup() returns trigger language plpgsql as $$
            begin insert into public.profiles (id) values (new.id); return new; end $$;
            create trigger on_signup after insert on auth.users for each row execute function public.on_signup();
            """
        let db = try PgTAPFixtures.standInDatabase(pgtap: true, extraSQL: trigger)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "select plan(1);\nselect throws_ok($$ select tests.create_supabase_user('a') $$, '42501');\n"
            .write(toFile: dir + "/t.sql", atomically: true, encoding: .utf8)
        let r = try PgTAPRunner(connection: db.connectionString, helpers: .api).run(PgTAPRunner.discover([dir]))
        XCTAssertTrue(r.passed, r.report.outcomes.map { "\($0.name) \($0.message ?? "")" }.joined(separator: "\n"))
    }

    func testErrorPositionsIgnoreTheHelperRewrite() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "select plan(1);\nselect tests.create_supabase_user('a'), tests.get_supabase_uid('a'), no_such_column;\n"
            .write(toFile: dir + "/p.sql", atomically: true, encoding: .utf8)
        let r = try PgTAPRunner(connection: db.connectionString).run(PgTAPRunner.discover([dir]))
        let e = try XCTUnwrap(r.files[0].sqlError)
        XCTAssertEqual(e.location.line, 2)
        XCTAssertEqual(e.location.column, 70, "the column of no_such_column as written")
        XCTAssertEqual(e.sql, "select tests.create_supabase_user('a'), tests.get_supabase_uid('a'), no_such_column")
    }

    func testAnInstalledCopyOfTheHelpersIsUsedAsItIs() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true, extraSQL: SupabaseTestHelpers.installSQL())
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try PgTAPFixtures.snapshot(conn)
        let files = try PgTAPRunner.discover([PgTAPFixtures.dir + "/11-helpers.sql"])
        let r = try PgTAPRunner(connection: db.connectionString, jobs: 2).run(files + files)
        XCTAssertTrue(r.passed, r.report.outcomes.filter(\.isFailure).map(\.name).joined(separator: "\n"))
        XCTAssertEqual(try PgTAPFixtures.snapshot(conn), before)
    }

    func testALostConnectionStopsTheRun() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "select plan(1);\nselect pg_terminate_backend(pg_backend_pid());\n".write(
            toFile: dir + "/k.sql", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try PgTAPRunner(connection: db.connectionString).run(PgTAPRunner.discover([dir]))) {
            error in
            XCTAssertTrue((error as? PostgresError)?.isConnectionFailure ?? false, "\(error)")
        }
    }
}
