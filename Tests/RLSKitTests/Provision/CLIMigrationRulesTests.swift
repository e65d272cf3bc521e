import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Migrations run as `supabase db reset` runs them: only CLI-named files, BEGIN … COMMIT
/// blocks inside a file, a clean session per file, seed files afterwards.
final class CLIMigrationRulesTests: ScratchTestCase {
    func database() throws -> PostgresConnection { try database(prefix: "climig") }

    func migrate(
        _ conn: PostgresConnection, _ dir: String, seeds: [SQLFile] = [], log: @escaping (String) -> Void = { _ in }
    ) throws -> Migrator.Result {
        var o = Migrator.Options()
        o.standIn = false
        o.seeds = seeds
        return try Migrator(conn, source: .directory(dir), options: o, log: log).run()
    }

    func int(_ conn: PostgresConnection, _ sql: String) throws -> Int { try conn.query(sql).rows[0].decode(0) }

    func testOnlyFilesNamedAsMigrationsAreAppliedOthersSkippedWithANote() throws {
        let conn = try database()
        let dir = try folder([
            "20240101000000_a.sql": "create table a (x int);",
            "ALL_MIGRATIONS.sql": "select 1/0;",
            "notes.sql": "select 1/0;",
            "v2_b.sql": "select 1/0;",
        ])
        var lines: [String] = []
        let r = try migrate(conn, dir) { lines.append($0) }
        XCTAssertEqual(r.applied.map(\.name), ["20240101000000_a"])
        XCTAssertEqual(r.skipped, ["ALL_MIGRATIONS.sql", "notes.sql", "v2_b.sql"])
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("skipped ALL_MIGRATIONS.sql: not named <digits>_<name>.sql") }, "\(lines)")
        XCTAssertTrue(
            ProjectCheck.applySummary(r, .directory(dir)).contains("skipped ALL_MIGRATIONS.sql, notes.sql, v2_b.sql"))
    }

    /// Supabase's published realtime snippet: a BEGIN … COMMIT block in the middle of a file.
    func testBeginCommitBlocksInsideAFileRunInTheFilesTransaction() throws {
        let conn = try database()
        let dir = try folder([
            "001_products.sql": """
            create table products (id int primary key);
            begin;
              drop publication if exists rlskit_test_pub;
              create publication rlskit_test_pub;
            commit;
            alter publication rlskit_test_pub add table products;
            BEGIN; create table tags (x int); END;
            """
        ])
        XCTAssertEqual(try migrate(conn, dir).applied.count, 1)
        XCTAssertEqual(
            try int(conn, "select count(*)::int from pg_publication_tables where pubname = 'rlskit_test_pub'"), 1)
        XCTAssertEqual(try int(conn, "select count(*)::int from pg_tables where tablename = 'tags'"), 1)

        // All or nothing: a failure after a block leaves neither the block nor a ledger row.
        let failing = try folder(["002_late.sql": "begin;\ncreate table early (x int);\ncommit;\nselect 1/0;\n"])
        XCTAssertThrowsError(try migrate(conn, failing)) { e in
            XCTAssertEqual((e as? MigrationError)?.location.line, 4, "\(e)")
        }
        XCTAssertEqual(try int(conn, "select count(*)::int from pg_tables where tablename = 'early'"), 0)
        XCTAssertEqual(try int(conn, "select count(*)::int from rlskit.migrations where version = '002'"), 0)

        for (body, want) in [
            (
                "select 1;\nbegin;\ncreate table u (x int);\n",
                "003_t.sql:2: 'begin' opens a transaction block the file never commits"
            ),
            ("begin;\nbegin;\ncommit;\n", "003_t.sql:2: 'begin' opens a transaction inside an open BEGIN block"),
            ("begin;\nselect 1;\nrollback;\n", "003_t.sql:3: 'rollback' controls the transaction"),
        ] {
            let bad = try folder(["003_t.sql": body])
            XCTAssertThrowsError(try migrate(conn, bad)) { e in
                XCTAssertTrue(e is ConfigurationError, "\(e)")
                XCTAssertTrue("\(e)".contains(want), "\(e)")
            }
        }
    }

    /// A `db dump`-style file empties the search path for the session; the next file, and the
    /// caller's session, start clean.
    func testEachFileStartsFromACleanSession() throws {
        let conn = try database()
        let before: String = try conn.query("select current_setting('search_path') as p").rows[0].decode("p")
        let dir = try folder([
            "001_dump.sql": """
            create table public.companies (id int);
            select pg_catalog.set_config('search_path', '', false);
            set statement_timeout = 1;
            """,
            "002_next.sql": "insert into companies values (1);\nselect pg_sleep(0.01);\n",
            "003_path.sql": "set search_path = nowhere;\n",
        ])
        XCTAssertEqual(try migrate(conn, dir).applied.count, 3)
        XCTAssertEqual(try int(conn, "select count(*)::int from companies"), 1)
        XCTAssertEqual(try conn.query("select current_setting('search_path') as p").rows[0].decode("p"), before)
        XCTAssertEqual(
            try conn.query("select current_setting('statement_timeout') as t").rows[0].decode("t") as String, "0")
    }

    func testSeedsRunAfterTheMigrationsOnceEach() throws {
        let conn = try database()
        let dir = try folder([
            "migrations/001_t.sql": "create table public.companies (id int primary key);",
            "seed.sql":
                "select pg_catalog.set_config('search_path', '', false);\ninsert into public.companies values (1), (2);\n",
        ])
        let seed = try SQLFile.load(dir + "/seed.sql")
        let first = try migrate(conn, dir + "/migrations", seeds: [seed])
        XCTAssertEqual(first.seeded, [dir + "/seed.sql"])
        XCTAssertEqual(try int(conn, "select count(*)::int from companies"), 2)
        XCTAssertTrue(ProjectCheck.applySummary(first, .directory(dir)).contains("seeded from \(dir)/seed.sql"))
        var lines: [String] = []
        let changed = SQLFile(path: seed.path, contents: seed.contents + "insert into public.companies values (3);\n")
        XCTAssertEqual(try migrate(conn, dir + "/migrations", seeds: [changed]) { lines.append($0) }.seeded, [])
        XCTAssertEqual(try int(conn, "select count(*)::int from companies"), 2)
        XCTAssertTrue(lines.contains("warning: seed \(seed.path) changed since it ran; not re-run"), "\(lines)")

        let broken = SQLFile(path: dir + "/bad.sql", contents: "insert into public.companies values (1);\n")
        XCTAssertThrowsError(try migrate(conn, dir + "/migrations", seeds: [broken])) { e in
            XCTAssertTrue("\(e)".contains("bad.sql:1:"), "\(e)")
        }
    }

    func testProjectFindsConfigAndSeeds() throws {
        let dir = try folder([
            "supabase/migrations/001_t.sql": "select 1;",
            "supabase/seed.sql": "select 1;",
            "plain/migrations/001_t.sql": "select 1;",
            "plain/seed.sql": "select 1;",
            "conf/supabase/migrations/001_t.sql": "select 1;",
            "conf/supabase/config.toml": "[db.seed]\nenabled = true\nsql_paths = ['./seeds/*.sql', './seed.sql']\n",
            "conf/supabase/seeds/b.sql": "select 2;",
            "conf/supabase/seeds/a.sql": "select 1;",
            "bad/supabase/migrations/001_t.sql": "select 1;",
            "bad/supabase/config.toml": "[api]\nschemas = public\n\n",
        ])
        let plain = try SupabaseProject.locate(.directory(dir + "/supabase/migrations/"))
        XCTAssertEqual(plain?.seeds.map(\.path), [dir + "/supabase/seed.sql"])
        XCTAssertNil(plain?.config)
        XCTAssertEqual(try SupabaseProject.locate(.directory(dir + "/plain/migrations"))?.seeds, [])
        XCTAssertNil(try SupabaseProject.locate(.builtIn))
        let conf = try SupabaseProject.locate(.directory(dir + "/conf/supabase/migrations"))
        XCTAssertEqual(conf?.seeds.map { ($0.path as NSString).lastPathComponent }, ["a.sql", "b.sql"])
        XCTAssertEqual(conf?.config?.settingsRead, ["db.seed.enabled", "db.seed.sql_paths"])
        XCTAssertThrowsError(try SupabaseProject.locate(.directory(dir + "/bad/supabase/migrations"))) { e in
            XCTAssertTrue(e is InputError, "\(e)")
            XCTAssertTrue("\(e)".hasPrefix(dir + "/bad/supabase/config.toml:2"), "\(e)")
        }
    }
}
