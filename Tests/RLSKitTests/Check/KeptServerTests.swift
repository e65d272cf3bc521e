import Foundation
import Postgres
import XCTest

@_spi(CLI) @testable import RLSKit

/// A check on a kept server (postgres cloned from template databases, only the changed
/// migrations applied) must end where a check on a fresh server ends: the same catalog, the
/// same roles, sequences, extensions, ledger and publications, the same results.
final class KeptServerTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "kept-\(UUID().uuidString)"
        for dir in ["supabase/migrations", "supabase/tests"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + dir, withIntermediateDirectories: true)
        }
        try write(
            "seed.sql",
            "insert into public.items (owner_id, title) values ('aaaaaaaa-0000-4000-8000-000000000001', 'seeded'), (null, 'orphan');"
        )
        try write(
            "tests/items.sql",
            """
            begin;
            select plan(2);
            select is((select count(*)::int from public.items), 3, 'the migration row and the seed rows');
            select is((select max(id) from public.items), 3::bigint, 'the seed continues the migration''s sequence');
            select * from finish();
            rollback;
            """)
        try write(
            "tests/access.rls",
            """
            table public.items
              owner owner_id
              read owner
              write owner
            """)
        try write("migrations/0001_items.sql", Self.items)
        try write("migrations/0002_notes.sql", Self.notes)
        try write("migrations/0003_pgtap.sql", "create extension if not exists pgtap with schema extensions;")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    static let items = """
        create table public.items (id bigserial primary key, owner_id uuid, title text not null);
        alter table public.items enable row level security;
        create policy items_read on public.items for select to authenticated using (owner_id = auth.uid());
        create policy items_write on public.items for all to authenticated
          using (owner_id = auth.uid()) with check (owner_id = auth.uid());
        grant select, insert, update, delete on public.items to authenticated;
        grant usage on sequence public.items_id_seq to authenticated;
        insert into public.items (owner_id, title) values (null, 'from the migration');
        """
    static let notes = """
        create table public.notes (id int generated always as identity primary key, body text);
        alter table public.notes enable row level security;
        create policy notes_read on public.notes for select to anon using (true);
        create publication app_changes for table public.notes;
        alter default privileges in schema public grant select on tables to anon;
        """

    func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/supabase/" + path))
    }

    func project() throws -> Project.Given {
        var given = Project.Given(migrations: .directory(folder + "/supabase/migrations"))
        given.tests = try TestSuite.load([folder + "/supabase/tests"])
        return given
    }

    func start() throws -> LocalCluster {
        let files = try MigrationSource.directory(folder + "/supabase/migrations").load()
        return try LocalCluster(options: Sandbox.options(PlatformExtensions.clusterOptions(for: files)))
    }

    func check(on cluster: LocalCluster, kept: KeptServer?) throws -> ProjectCheck.Report {
        var database = ProjectCheck.Database(connection: cluster.adminConnectionString, isThrowaway: true)
        database.project = cluster.connectionString
        database.kept = kept
        return try ProjectCheck.run(ProjectCheck.Input(try project()), on: database)
    }

    /// What a clone could get wrong, read from `postgres`.
    func surface(_ cluster: LocalCluster) throws -> SecuritySurface {
        let conn = try PostgresConnection(cluster.adminConnectionString)
        defer { conn.close() }
        return try SurfaceReader.read(conn, exposedSchemas: ["public", "storage"])
    }

    func catalog(_ cluster: LocalCluster) throws -> [String] {
        let conn = try PostgresConnection(cluster.adminConnectionString)
        defer { conn.close() }
        var out: [String] = []
        let queries = [
            "select schemaname || '.' || sequencename || ' ' || coalesce(last_value::text, '-') from pg_sequences",
            "select 'role ' || rolname || ' ' || rolcanlogin || rolinherit from pg_roles where rolname !~ '^pg_'",
            "select 'member ' || roleid::regrole || ' ' || member::regrole from pg_auth_members",
            "select 'extension ' || extname || ' ' || extversion || ' ' || extnamespace::regnamespace from pg_extension",
            "select 'ledger ' || version || ' ' || checksum from rlskit.migrations",
            "select 'seed ' || path || ' ' || checksum from rlskit.seeds",
            "select 'publication ' || pubname || ' ' || schemaname || '.' || tablename from pg_publication_tables",
            "select 'default acl ' || defaclrole::regrole || ' ' || defaclobjtype::text || ' ' || defaclacl::text from pg_default_acl",
            "select 'class ' || c.oid::regclass || ' ' || c.relkind::text || ' ' || coalesce(c.relacl::text, '') from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname in ('public', 'auth', 'storage', 'extensions')",
            "select 'policy ' || schemaname || '.' || tablename || ' ' || policyname || ' ' || coalesce(qual, '') || ' ' || coalesce(with_check, '') from pg_policies",
            """
            select 'database ' || datname || ' ' || datdba::regrole || ' ' || coalesce(datacl::text, '') || ' '
              || coalesce(shobj_description(oid, 'pg_database'), '') from pg_database where datname = 'postgres'
            """,
            "select 'items ' || id || ' ' || title from public.items",
        ]
        for q in queries {
            out += try conn.query(q).rows.map { try $0.decode(0) as String }.sorted()
        }
        return out
    }

    /// The results with their times left out.
    func results(_ r: ProjectCheck.Report) -> [String] {
        r.tests.outcomes.map { "\($0.suite) \($0.actor ?? "") \($0.name) \($0.status)" }.sorted()
            + r.audit.findings.map { "\($0.lint) \($0.object.schema).\($0.object.name) \($0.level)" }.sorted()
            + ["passed \(r.passed)", "applied \(r.migrations.plan.count)"]
    }

    /// Each variant: the kept server's run (clone + what changed) against a fresh server's.
    func assertSameAsFresh(
        _ kept: LocalCluster, _ templates: KeptServer, cloned: Int, _ what: String, line: UInt = #line
    ) throws {
        let viaTemplate = try check(on: kept, kept: templates)
        let fresh = try start()
        defer { fresh.stop() }
        let reference = try check(on: fresh, kept: nil)
        XCTAssertTrue(reference.passed, "\(what): the fixture must pass on a fresh server", line: line)
        XCTAssertEqual(results(viaTemplate), results(reference), what, line: line)
        XCTAssertEqual(try surface(kept), try surface(fresh), what, line: line)
        let (a, b) = (try catalog(kept), try catalog(fresh))
        XCTAssertEqual(a.count, b.count, what, line: line)
        for (x, y) in zip(a, b) where x != y { XCTFail("\(what): kept \(x) ≠ fresh \(y)", line: line) }
        let apply = viaTemplate.phases.first { $0.name == "apply" }?.summary ?? ""
        XCTAssertTrue(apply.contains("(\(cloned) from a template database"), "\(what): \(apply)", line: line)
    }

    func testClonedRunsEndWhereFreshRunsEnd() throws {
        let kept = try start()
        defer { kept.stop() }
        let templates = try KeptServer(admin: kept.adminConnectionString, project: kept.connectionString)
        try assertSameAsFresh(kept, templates, cloned: 0, "first run")
        try assertSameAsFresh(kept, templates, cloned: 3, "nothing changed")

        try write(
            "migrations/0002_notes.sql", Self.notes.replacingOccurrences(of: "using (true)", with: "using (id > 0)"))
        try assertSameAsFresh(kept, templates, cloned: 0, "a migration changed in the middle")

        try write("migrations/0004_more.sql", "create sequence public.tickets; select nextval('public.tickets');")
        try assertSameAsFresh(kept, templates, cloned: 1, "a migration appended at the end")

        try write(
            "migrations/0002_notes.sql",
            Self.notes + """

                create role app_reader nologin;
                grant app_reader to authenticated;
                grant select on public.notes to app_reader;
                do $$ begin execute format('create role %I nologin', 'app_' || 'writer'); end $$;
                """)
        try assertSameAsFresh(kept, templates, cloned: 1, "a migration that creates roles and grants them")
        // The roles go with the file that made them: the next run must not see them.
        try write("migrations/0002_notes.sql", Self.notes)
        try assertSameAsFresh(kept, templates, cloned: 3, "the role-creating lines removed again")
    }

    /// The watch's order: between runs `prepareNext` clones the prefix the next run most likely
    /// starts from; a run that needs it uses it as it is, one that needs another clones again.
    func testCloneMadeWhileWaitingEndsWhereFreshRunsEnd() throws {
        let kept = try start()
        defer { kept.stop() }
        let templates = try KeptServer(admin: kept.adminConnectionString, project: kept.connectionString)
        let project = { try Project.resolve(try self.project()) }
        try assertSameAsFresh(kept, templates, cloned: 0, "first run")
        templates.prepareNext()
        // The newest file edited, as the watch guessed: the clone made while waiting is used.
        try write("migrations/0003_pgtap.sql", "create extension if not exists pgtap with schema extensions;\n")
        XCTAssertTrue(try templates.prepare(project()).madeWhileWaiting)
        templates.prepareNext()
        try write("migrations/0003_pgtap.sql", "create extension if not exists pgtap with schema extensions; ")
        try assertSameAsFresh(kept, templates, cloned: 2, "the newest file edited again")
        templates.prepareNext()
        // Another file edited: the guess is wrong, the run clones what it needs.
        try write(
            "migrations/0002_notes.sql", Self.notes.replacingOccurrences(of: "using (true)", with: "using (id > 1)"))
        XCTAssertFalse(try templates.prepare(project()).madeWhileWaiting)
        templates.prepareNext()
        try write(
            "migrations/0002_notes.sql", Self.notes.replacingOccurrences(of: "using (true)", with: "using (id > 2)"))
        try assertSameAsFresh(kept, templates, cloned: 1, "a middle file edited twice")
        // A run that created a role: the clone made while waiting drops it, as a run's own clone does.
        try write("migrations/0004_role.sql", "create role app_auditor nologin;")
        try assertSameAsFresh(kept, templates, cloned: 1, "a file that creates a role appended")
        templates.prepareNext()
        try FileManager.default.removeItem(atPath: folder + "/supabase/migrations/0004_role.sql")
        try assertSameAsFresh(kept, templates, cloned: 3, "that file removed again")
    }

    /// The entry point a mutation run uses: clone the full template, change one policy, test.
    func testAMutantIsOneCloneAndOnePolicyAway() throws {
        let kept = try start()
        defer { kept.stop() }
        let templates = try KeptServer(admin: kept.adminConnectionString, project: kept.connectionString)
        let project = try Project.resolve(try self.project())
        _ = try templates.prepare(project, saveAll: true)
        try templates.reset(toAllMigrations: project)
        let admin = try PostgresConnection(kept.adminConnectionString)
        try admin.query("alter policy items_read on public.items using (true)")
        admin.close()
        let mutant = try check(on: kept, kept: nil)
        XCTAssertFalse(mutant.passed, "a stranger reads the rows: the access file's checks must fail")
        XCTAssertTrue(mutant.tests.outcomes.contains { $0.isFailure }, "\(results(mutant))")
        try templates.reset(toAllMigrations: project)
        XCTAssertTrue(try check(on: kept, kept: nil).passed, "the next clone has the policy as written")
    }

    /// One run on a kept server, `between` it and the next, then the next refuses the server.
    func assertTheNextRunIsRefused(
        between: (LocalCluster, KeptServer) throws -> Void = { _, _ in }, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let kept = try start()
        defer { kept.stop() }
        let templates = try KeptServer(admin: kept.adminConnectionString, project: kept.connectionString)
        _ = try check(on: kept, kept: templates)
        try between(kept, templates)
        XCTAssertThrowsError(try check(on: kept, kept: templates), file: file, line: line) { error in
            XCTAssertTrue(error is KeptServer.Spoiled, "\(error)", file: file, line: line)
        }
    }

    /// A role setting changed by a run cannot be put back by dropping roles: the next run refuses.
    func testChangedClusterSettingSpoilsTheServer() throws {
        try write("migrations/0004_setting.sql", "alter role authenticated set statement_timeout = '7s';")
        try assertTheNextRunIsRefused()
    }

    /// postgres may create databases, also under the name a later prefix's template will have
    /// (the names follow from the files): such a database is never cloned, and the next run
    /// refuses the server.
    func testADatabaseMadeUnderATemplatesNameIsNeverCloned() throws {
        try assertTheNextRunIsRefused { kept, templates in
            try self.write("migrations/0004_more.sql", "create index on public.items (title);")
            let given = try self.project()
            let options = try Project.resolve(given).migrator(throwaway: true, projectConnection: kept.connectionString)
            let names = try templates.chain(try given.migrations.load(), options: options)
            let project = try PostgresConnection(kept.connectionString)
            defer { project.close() }
            // A copy of the stand-in alone, named as the prefix with every file.
            try project.query("create database \(SQL.ident(names[4])) template \(SQL.ident(names[0]))")
            XCTAssertFalse(try templates.kept().contains(names[4]))
        }
    }

    /// A replication slot outlives the database dropped under it (and keeps WAL): the next run
    /// refuses the server.
    func testAReplicationSlotSpoilsTheServer() throws {
        try write("migrations/0004_slot.sql", "select pg_create_physical_replication_slot('hold_wal', true);")
        try assertTheNextRunIsRefused { _, _ in
            try FileManager.default.removeItem(atPath: self.folder + "/supabase/migrations/0004_slot.sql")
        }
    }

    func testClusterWideStatementsAreFoundWithTheirLine() {
        let hits = [
            "create table t (x int);\ncreate role r;", "select 1;\n\ngrant anon to authenticator;",
            "do $$ begin\n execute 'ALTER ROLE x SET a = 1'; end $$;", "alter database postgres set x.y = 1;",
            "grant connect on database postgres to anon;", "comment on role anon is 'x';",
        ]
        XCTAssertEqual(hits.map(ClusterWideSQL.firstLine), [2, 3, 2, 1, 1, 1])
        let misses = [
            "grant select on public.t to anon;", "revoke all on function f() from public;",
            "alter default privileges for role postgres in schema public grant select on tables to anon;",
            "create policy p on t for select to authenticated using (user_id = auth.uid());",
            "create table user_roles (role text);",
        ]
        XCTAssertEqual(misses.map(ClusterWideSQL.firstLine), [nil, nil, nil, nil, nil])
    }
}
