import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// The shared-state suite: setup and teardown files, a project's default-ACL revokes, its own
/// `tests.*` function, the dbdev preamble, basejump's helper behaviour.
final class PgTAPSharedStateTests: XCTestCase {
    func projectDatabase() throws -> (name: String, connectionString: ConnectionString) {
        try PgTAPFixtures.standInDatabase(
            extraSQL: try String(contentsOfFile: PgTAPFixtures.sharedProjectSQL, encoding: .utf8))
    }

    func failures(_ r: PgTAPRunResult) -> String {
        r.files.map { f in
            "\(f.file): "
                + f.outcomes.filter(\.isFailure).map { "\($0.name) \($0.message ?? "")" }.joined(separator: "; ")
        }.joined(separator: "\n")
    }

    func verdicts(_ r: PgTAPRunResult) -> [String: Bool] {
        Dictionary(uniqueKeysWithValues: r.files.map { (($0.file as NSString).lastPathComponent, $0.passed) })
    }

    func testFilesShareStateAsUnderPgProveAndTheRunLeavesNothing() throws {
        let db = try projectDatabase()
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try PgTAPFixtures.snapshot(conn)
        let files = try PgTAPRunner.discover([PgTAPFixtures.sharedDir])
        let r = try PgTAPRunner(connection: db.connectionString).run(files)
        let expected = try PgTAPFixtures.expectedVerdicts(in: PgTAPFixtures.sharedDir)
        XCTAssertEqual(r.files.map { ($0.file as NSString).lastPathComponent }, expected.map(\.file), "in name order")
        let ours = verdicts(r)
        for e in expected { XCTAssertEqual(ours[e.file], e.passes, "\(e.file)\n\(failures(r))") }
        XCTAssertEqual(try PgTAPFixtures.snapshot(conn), before, "the run left nothing")
        XCTAssertEqual(
            r.notes.filter { $0.contains("dbdev") },
            [
                "skipped the dbdev install of supabase-test-helpers in \(PgTAPFixtures.sharedDir)/0006-dbdev-preamble.sql, \(PgTAPFixtures.sharedDir)/0007-dbdev-short.sql, \(PgTAPFixtures.sharedDir)/0015-dbdev-wrapped.sql, \(PgTAPFixtures.sharedDir)/0016-dbdev-do-block.sql: the helpers are built in"
            ])
        let error = try XCTUnwrap(r.files.first { $0.file.hasSuffix("0003-error-in-autocommit.sql") }?.sqlError)
        XCTAssertEqual(error.location.line, 5)
        let messages = r.report.outcomes.compactMap(\.message).joined(separator: "\n")
        XCTAssertFalse(messages.contains("pg_temp") || messages.contains("tests_"), messages)
    }

    func testJobsGiveTheSameVerdictsAndSayHowTheyRan() throws {
        let db = try projectDatabase()
        defer { TestServer.drop(db.name) }
        let files = try PgTAPRunner.discover([PgTAPFixtures.sharedDir])
        let one = try PgTAPRunner(connection: db.connectionString).run(files)
        let three = try PgTAPRunner(connection: db.connectionString, jobs: 3).run(files)
        XCTAssertEqual(verdicts(one), verdicts(three))
        XCTAssertEqual(one.files.map(\.summary.tests.count), three.files.map(\.summary.tests.count))
        XCTAssertTrue(
            three.notes.contains { $0.hasPrefix("--jobs 3: files ran one at a time in name order, because ") },
            three.notes.joined(separator: "\n"))
    }

    func testJobsSpreadTheFilesBeforeTheFirstSetupFile() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let contained =
            "begin;\nselect plan(1);\nselect diag('pid ' || pg_backend_pid());\nselect pass('alone');\nrollback;\n"
        try contained.write(toFile: dir + "/01-a.sql", atomically: true, encoding: .utf8)
        try contained.write(toFile: dir + "/02-b.sql", atomically: true, encoding: .utf8)
        try "create table public.from_setup (id int);\nselect plan(1);\nselect pass('setup');\n"
            .write(toFile: dir + "/03-setup.sql", atomically: true, encoding: .utf8)
        try
            "begin;\nselect plan(1);\nselect diag('pid ' || pg_backend_pid());\nselect has_table('public', 'from_setup', 'after the setup');\nrollback;\n"
            .write(toFile: dir + "/04-uses.sql", atomically: true, encoding: .utf8)
        let files = try PgTAPRunner.discover([dir])
        let one = try PgTAPRunner(connection: db.connectionString).run(files)
        let two = try PgTAPRunner(connection: db.connectionString, jobs: 2).run(files)
        XCTAssertTrue(one.passed && two.passed, failures(two))
        XCTAssertEqual(verdicts(one), verdicts(two))
        XCTAssertEqual(
            two.notes,
            [
                "--jobs 2: the 2 files before \(dir)/03-setup.sql ran over 2 connections, then files ran one at a time in name order, because \(dir)/03-setup.sql:1:1 keeps its work for the files after it, as under pg_prove"
            ])
        let pids = two.files.map { $0.summary.diagnostics.first { $0.contains("pid ") } }
        XCTAssertNotNil(pids[0])
        XCTAssertNotEqual(pids[0], pids[3], "the first files ran on connections of their own")
        XCTAssertEqual(
            try PgTAPFixtures.snapshot(PostgresConnection(db.connectionString)).filter { $0.contains("from_setup") }, []
        )
    }

    func testAContainedSuiteStillRunsInParallel() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let files = try PgTAPRunner.discover([
            PgTAPFixtures.dir + "/01-pass.sql", PgTAPFixtures.dir + "/06-skip-todo.sql",
        ])
        let r = try PgTAPRunner(connection: db.connectionString, jobs: 2).run(files)
        XCTAssertTrue(r.passed, failures(r))
        XCTAssertEqual(r.notes, [])
    }

    func testApiHelpersSignUpAsTheAuthServer() throws {
        // The project's sign-up trigger is not SECURITY DEFINER: fine as basejump inserts, refused as GoTrue would.
        let db = try projectDatabase()
        defer { TestServer.drop(db.name) }
        let files = try PgTAPRunner.discover([
            PgTAPFixtures.sharedDir + "/0000-setup.sql", PgTAPFixtures.sharedDir + "/0008-basejump-helpers.sql",
        ])
        let basejump = try PgTAPRunner(connection: db.connectionString).run(files)
        XCTAssertTrue(basejump.passed)
        XCTAssertEqual(
            basejump.notes.filter { $0.hasPrefix("auth.users triggers without SECURITY DEFINER: log_signup (") },
            [
                "auth.users triggers without SECURITY DEFINER: log_signup (log_signup()); tests.create_supabase_user inserts as the calling role here (as basejump's helpers do), but on Supabase sign-up runs as supabase_auth_admin: try --helpers api"
            ], "\(basejump.notes)")
        XCTAssertFalse(basejump.notes.contains { $0.contains("JWT's role") })
        let api = try PgTAPRunner(connection: db.connectionString, helpers: .api).run(files)
        XCTAssertFalse(api.files[0].passed, "the setup's sign-up fails under --helpers api")
        XCTAssertFalse(api.notes.contains { $0.contains("--helpers api") }, "no hint when already in use")
    }

    func testBasejumpHelpersDetailsAsIn006() throws {
        // Timestamps, volatility, default privileges in `tests`, and rls_enabled's wording.
        let db = try projectDatabase()
        defer { TestServer.drop(db.name) }
        let files = try PgTAPRunner.discover(
            ["0000-setup.sql", "0009-rls-enabled-counts-views.sql", "0014-basejump-details.sql"].map {
                PgTAPFixtures.sharedDir + "/" + $0
            })
        let r = try PgTAPRunner(connection: db.connectionString).run(files)
        XCTAssertEqual(r.files.map(\.passed), [true, false, true], failures(r))
        XCTAssertEqual(
            r.files[1].summary.tests.map(\.description),
            ["All tables in thepublic schema should have row level security enabled"])
        XCTAssertEqual(
            r.files[2].summary.tests[3].description,
            "notestable in thepublic schema should have row level security enabled")
    }

    func testASetupFileThatFailsSaysWhereAndWhatToDo() throws {
        // pg_prove's verdicts on these files: PgTAPCountsTests.
        let dir = PgTAPFixtures.root + "/Tests/Fixtures/pgtap-setup-fails"
        let db = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(db.name) }
        let r = try PgTAPRunner(connection: db.connectionString).run(PgTAPRunner.discover([dir]))
        XCTAssertEqual(r.files.map(\.passed), [false, true, false, true], failures(r))
        let text = TestReportWriter.render(r.report, format: .text)
        XCTAssertTrue(
            text.contains(
                "  ✗ SQL error: ERROR: relation \"public.no_such_table\" does not exist (SQLSTATE 42P01)  "
                    + "(\(dir)/0000-setup.sql:4:1)\n"
                    + "      the file stopped here (as psql with ON_ERROR_STOP does); what it did before this statement "
                    + "stays for the files after it, as under pg_prove, and the rest never ran: fix this statement, "
                    + "since files that need the rest fail too\n"), text)
        XCTAssertTrue(
            text.contains("\"public.setup_after\" does not exist (SQLSTATE 42P01)  (\(dir)/0002-uses-after.sql:4:38)"),
            text)
        // The error's outcome says the file's own transaction was rolled back; the short plan follows it.
        let messages = r.files[2].outcomes.compactMap(\.message)
        XCTAssertTrue(messages.contains { $0.hasSuffix("and was rolled back") }, "its own transaction: \(messages)")
        XCTAssertEqual(r.files[2].outcomes.last?.name, "planned 1 test but ran 0")
    }

    func testPoliciesReadingTheJWTRoleAreNoted() throws {
        let db = try PgTAPFixtures.standInDatabase(
            pgtap: true,
            extraSQL: """
                create table public.staff (id int);
                alter table public.staff enable row level security;
                create policy "by role" on public.staff for select using (auth.role() = 'authenticated');
                """)
        defer { TestServer.drop(db.name) }
        let r = try PgTAPRunner(connection: db.connectionString).run(
            PgTAPRunner.discover([PgTAPFixtures.dir + "/11-helpers.sql"]))
        XCTAssertTrue(r.notes.contains { $0.hasPrefix("1 policy reads the JWT's role: ") }, "\(r.notes)")
    }

    func testAProjectsPlainCreateOfAHelperNameIsItsOwn() throws {
        let db = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(db.name) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        create function tests.get_supabase_uid(identifier text) returns uuid language sql
          as $$ select '00000000-0000-0000-0000-000000000001'::uuid $$;
        select plan(2);
        select is(tests.get_supabase_uid('anyone'), '00000000-0000-0000-0000-000000000001'::uuid, 'the project''s own');
        select tests.create_supabase_user('a');
        select ok(tests.get_supabase_user('a') is not null, 'the other helpers are still built in');
        """.write(toFile: dir + "/own.sql", atomically: true, encoding: .utf8)
        let r = try PgTAPRunner(connection: db.connectionString).run(PgTAPRunner.discover([dir]))
        XCTAssertTrue(r.passed, failures(r))
    }

    func testASuiteCarryingItsOwnHelpersUsesThem() throws {
        let db = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try PgTAPFixtures.snapshot(conn)
        let r = try PgTAPRunner(connection: db.connectionString).run(
            PgTAPRunner.discover([PgTAPFixtures.ownHelpersDir]))
        let ours = verdicts(r)
        for e in try PgTAPFixtures.expectedVerdicts(in: PgTAPFixtures.ownHelpersDir) {
            XCTAssertEqual(ours[e.file], e.passes, "\(e.file)\n\(failures(r))")
        }
        XCTAssertEqual(try PgTAPFixtures.snapshot(conn), before, "the run left nothing")
    }

    func testSetupAndFilesShapes() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func script(_ text: String) throws -> PsqlScript {
            try text.write(toFile: dir + "/s.sql", atomically: true, encoding: .utf8)
            return PsqlScript.load(path: dir + "/s.sql")
        }
        XCTAssertNil(
            try script("set search_path = public;\nbegin;\nselect plan(1);\nselect 1;\nrollback;\n").firstSharedStep)
        XCTAssertNil(try script("begin;\ncreate table t ();\n").firstSharedStep, "psql's exit rolls back")
        XCTAssertEqual(try script("begin;\nselect 1;\ncommit;\n").firstSharedStep?.line, 3)
        XCTAssertEqual(try script("select plan(1);\n").firstSharedStep?.line, 1)
        XCTAssertEqual(
            try script(
                "create function tests.get_supabase_uid(t text) returns uuid language sql as $$ select null::uuid $$;\n"
            )
            .definedHelpers, ["get_supabase_uid"])
        let replace =
            "create or replace function tests.rls_enabled(t text) returns text language sql as $$ select '' $$;\n"
        XCTAssertEqual(try script("begin;\n" + replace + "rollback;\n").definedHelpers, [], "replaces ours in the file")
        XCTAssertEqual(try script(replace).definedHelpers, ["rls_enabled"], "kept for later files")
        XCTAssertEqual(try script("begin;\n" + replace + "commit;\n").definedHelpers, ["rls_enabled"])
    }

    func testDbdevPreambleSpellings() {
        for sql in [
            "create extension if not exists http with schema extensions", "create extension if not exists pg_tle",
            "drop extension if exists \"supabase-dbdev\"", "create extension \"supabase-dbdev\"",
            "select pgtle.uninstall_extension_if_exists('supabase-dbdev')",
            "select pgtle.install_extension('supabase-dbdev', v, 'x', s) from http(('GET', 'https://api.database.dev/x', null, null, null)) x",
            "SELECT dbdev.install('supabase-dbdev')",
            "select dbdev.install('basejump-supabase_test_helpers')",
            "CREATE EXTENSION IF NOT EXISTS \"basejump-supabase_test_helpers\" VERSION '0.0.6'",
        ] {
            XCTAssertEqual(StatementKind.of(sql, dbdev: true), .installHelpers, sql)
        }
        let wrapper =
            "create or replace function public.install_extensions() returns void as $$ begin perform pgtle.install_extension('supabase-dbdev', '1', 'x', 's'); perform dbdev.install('basejump-supabase_test_helpers'); end $$ language plpgsql"
        XCTAssertEqual(StatementKind.preambleFunction(wrapper), "install_extensions")
        XCTAssertEqual(StatementKind.of(wrapper, dbdev: true), .installHelpers)
        for call in [
            "select install_extensions()", "SELECT public.install_extensions();", "drop function install_extensions()",
        ] {
            XCTAssertEqual(StatementKind.of(call, dbdev: true, wrappers: ["install_extensions"]), .installHelpers, call)
        }
        let block =
            "do $$ begin create extension if not exists pg_tle; perform dbdev.install('basejump-supabase_test_helpers'); exception when others then null; end $$"
        XCTAssertEqual(StatementKind.of(block, dbdev: true), .installHelpers, "the preamble in a do block")
        XCTAssertEqual(StatementKind.of("do $$ begin perform 1; end $$", dbdev: true), .other)
        XCTAssertEqual(StatementKind.of("select install_extensions()", dbdev: true), .other)
        XCTAssertNil(StatementKind.preambleFunction("create function f() returns int language sql as $$ select 1 $$"))
        XCTAssertEqual(StatementKind.of("create extension if not exists http with schema extensions"), .other)
        XCTAssertEqual(StatementKind.of("select pgtle.install_extension('x', '1', 'y', 'z')"), .other)
    }
}
