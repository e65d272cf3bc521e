import Foundation
import Postgres
import XCTest

@_spi(CLI) @testable import RLSKit

/// rlskit's server module on a sandbox cluster, seen from both sides: the project's role
/// (postgres) and rlskit's own superuser sessions, which must never run a project's code.
final class SandboxModuleTests: XCTestCase {
    nonisolated(unsafe) static var cluster: LocalCluster?

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
    }

    func sandbox() throws -> LocalCluster {
        if let c = Self.cluster { return c }
        let c = try LocalCluster(options: Sandbox.options(PlatformExtensions.clusterOptions))
        Self.cluster = c
        let pg = try PostgresConnection(c.connectionString)
        _ = try pg.runScript(
            """
            create table public.victim (x int);
            create function public.project_fn() returns int language plpgsql as $$ begin return 1; end $$;
            create function public.project_sql() returns int language sql as 'select 2';
            create function public.flip() returns text language plpgsql as $$
              begin perform set_config('role', 'none', true); return current_user; end $$;
            create function public.flip_reset() returns text language plpgsql as $$
              begin reset role; return current_user; end $$;
            create function public.flip_auth() returns text language plpgsql as $$
              begin perform set_config('session_authorization', 'supabase_admin', true); return current_user; end $$;
            create function public.on_victim() returns trigger language plpgsql as $$ begin return new; end $$;
            create trigger on_victim before insert on public.victim for each row execute function public.on_victim();
            create view public.calls as select public.project_fn() as v;
            """)
        pg.close()
        return c
    }

    func refused(
        _ conn: PostgresConnection, _ sql: String, _ text: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try conn.query(sql), sql, file: file, line: line) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42501", "\(sql): \(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(text), "\(sql): \(error)", file: file, line: line)
        }
    }

    /// A function, trigger, view or inlined SQL function a project wrote never runs as superuser.
    func testProjectCodeNeverRunsWithSuperuserRights() throws {
        let admin = try PostgresConnection(try sandbox().adminConnectionString)
        for sql in [
            "select public.project_fn()", "select public.project_sql()", "select * from public.calls",
            "select 1 where public.project_sql() = 2",
        ] {
            refused(admin, sql, "would run with superuser rights")
        }
        // rlskit's own sessions write no table a project can reach; told they install the
        // stand-in, the project's trigger is still refused.
        refused(admin, "insert into public.victim values (1)", "rlskit's own session would write public.victim")
        refused(admin, "truncate public.victim", "rlskit's own session would write public.victim")
        try admin.query("set rlskit_sandbox.admin_writes = on")
        refused(admin, "insert into public.victim values (1)", "would run with superuser rights")
        try admin.query("reset rlskit_sandbox.admin_writes")
        // As a project role, in the same session, it runs.
        try admin.query("set role postgres")
        XCTAssertEqual(try admin.query("select public.project_sql() as v").rows[0].decode("v") as Int, 2)
        try admin.query("reset role")
    }

    /// In a session logged in as the admin, a project's function cannot get the admin back.
    func testProjectFunctionCannotChangeRoleInAnAdminSession() throws {
        let admin = try PostgresConnection(try sandbox().adminConnectionString)
        try admin.query("begin")
        try admin.query("select set_config('role', 'postgres', true)")
        for fn in ["flip", "flip_reset", "flip_auth"] {
            try admin.query("savepoint s")
            refused(admin, "select public.\(fn)()", "cannot change")
            try admin.query("rollback to savepoint s")
        }
        try admin.query("rollback")
        // Logged in as postgres, 'none' is postgres: nothing to gain, so it is allowed.
        let pg = try PostgresConnection(try sandbox().connectionString)
        XCTAssertEqual(try pg.query("select public.flip() as who").rows[0].decode("who") as String, "postgres")
    }

    /// Even rlskit's own superuser sessions cannot reach the server's files or programs.
    func testServerFilesAndProgramsAreClosedToEveryone() throws {
        let admin = try PostgresConnection(try sandbox().adminConnectionString)
        refused(admin, "select pg_read_file('/etc/hostname')", "server's files")
        refused(admin, "select pg_ls_dir('.')", "server's files")
        refused(admin, "select lo_import('/etc/hostname')", "server's files")
        refused(admin, "copy (select 1) to program 'true'", "COPY to or from a program")
        refused(admin, "copy (select 1) to '/tmp/x'", "COPY to or from a server file")
        refused(admin, "alter system set work_mem = '1MB'", "ALTER SYSTEM")
        refused(admin, "load 'plpgsql'", "LOAD")
        // Nor through the contrib modules a superuser may create: adminpack's writers,
        // file_fdw's reader, a C function of theirs under another name, a tablespace.
        let marker = NSTemporaryDirectory() + "rlskit-adminpack-" + UUID().uuidString.prefix(8)
        _ = try admin.query("create extension if not exists adminpack")
        refused(admin, "select pg_catalog.pg_file_write('\(marker)', 'x', false)", "server's files")
        _ = try admin.query(
            "create function pg_temp.w(text, text, boolean) returns bigint language c as '$libdir/adminpack', 'pg_file_write'"
        )
        refused(admin, "select pg_temp.w('\(marker)', 'x', false)", "server's files")
        // A validator by its C symbol only, not by a name chosen for it.
        _ = try admin.query(
            "create function pg_temp.w_validator(text, text, boolean) returns bigint language c as '$libdir/adminpack', 'pg_file_write'"
        )
        refused(admin, "select pg_temp.w_validator('\(marker)', 'x', false)", "server's files")
        _ = try admin.query(
            "create function pg_temp.c_validator(text) returns text language c as '$libdir/dblink', 'dblink_connect'"
        )
        refused(admin, "select pg_temp.c_validator('dbname=postgres')", "connect to another server")
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
        _ = try admin.runScript(
            """
            create extension if not exists file_fdw;
            create server if not exists files foreign data wrapper file_fdw;
            create foreign table if not exists pg_temp.hostname (line text) server files options (filename '/etc/hostname');
            """)
        refused(admin, "select * from pg_temp.hostname", "server's files")
        refused(admin, "create tablespace t location '/tmp'", "CREATE TABLESPACE")
        // The sandbox's own settings are fixed while the server runs.
        XCTAssertThrowsError(try admin.query("set rlskit_sandbox.reserved_roles = ''"))
    }

    /// Nothing running as the server's OS user logs in as rlskit's roles: as root, logins are
    /// checked by the kernel (peer, root only) and no role has a password to steal.
    func testNothingButRlskitLogsIn() throws {
        let c = try sandbox()
        guard geteuid() == 0 else { throw XCTSkip("needs root: the server then runs as another user") }
        XCTAssertNil(try c.connectionString.options()["password"])
        XCTAssertNil(try c.adminConnectionString.options()["password"])
        let admin = try PostgresConnection(c.adminConnectionString)
        XCTAssertEqual(
            try admin.query("select count(*)::int from pg_authid where rolpassword is not null").rows[0].decode(0)
                as Int, 0)
        for user in ["supabase_admin", "postgres"] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = [
                "--reuid=postgres", "--regid=postgres", "--clear-groups", "psql", "-X", "-h", c.directory + "/run",
                "-U", user,
                "-d", "postgres", "-c", "select 1",
            ]
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertNotEqual(p.terminationStatus, 0, user)
            XCTAssertTrue(said.contains("authentication failed") || said.contains("rejects connection"), said)
        }
    }

    /// Settings stored on the database or a role reach rlskit's own sessions: the search path
    /// cannot put the project's objects before the catalogs, and who they run as, whether
    /// triggers fire and what they load cannot be stored at all.
    func testStoredSettingsCannotReachRlskitsSessions() throws {
        let c = try sandbox()
        let pg = try PostgresConnection(c.connectionString)
        try pg.query("create view public.pg_class as select 1 as relname where false")
        try pg.query("alter database postgres set search_path = public, pg_catalog")
        defer { _ = try? pg.query("alter database postgres reset search_path") }
        let admin = try PostgresConnection(c.adminConnectionString)
        XCTAssertGreaterThan(try admin.query("select count(*)::int from pg_class").rows[0].decode(0) as Int, 100)
        for setting in [
            "role = 'postgres'", "session_replication_role = 'replica'", "local_preload_libraries = 'x'",
        ] {
            refused(pg, "alter database postgres set \(setting)", "is not allowed on rlskit's throwaway server")
            refused(pg, "alter role postgres set \(setting)", "is not allowed on rlskit's throwaway server")
        }
    }

    /// A superuser's SECURITY DEFINER function called from a project's session runs as the
    /// definer role, not as a superuser; SQL-running built-ins are refused to superusers, also
    /// under another name.
    func testSuperuserDefinerFunctionsRunAsTheDefinerRole() throws {
        let c = try sandbox()
        let admin = try PostgresConnection(c.adminConnectionString)
        _ = try admin.runScript(
            """
            create or replace function public.who() returns text language sql security definer
              as $$ select current_user::text || ' ' || (select rolsuper::text from pg_roles where rolname = current_user) $$;
            grant execute on function public.who() to postgres;
            """)
        let pg = try PostgresConnection(c.connectionString)
        XCTAssertEqual(try pg.query("select public.who() as w").rows[0].decode("w") as String, "rlskit_definer false")
        XCTAssertEqual(try admin.query("select public.who() as w").rows[0].decode("w") as String, "supabase_admin true")
        refused(admin, "select query_to_xml('select 1', false, false, '')", "would run SQL text with superuser rights")
        refused(
            admin, "select ts_rewrite('a'::tsquery, 'select ''a''::tsquery, ''b''::tsquery')",
            "would run SQL text with superuser rights")
        refused(admin, "select table_to_xml('pg_class', false, false, '')", "would run SQL text with superuser rights")
        XCTAssertNoThrow(try pg.query("select query_to_xml('select 1', false, false, '')"))
    }

    /// Root makes the cluster's folders before handing any to the server's user: only `data`
    /// and `run` belong to that user, so it cannot plant a link where root later writes.
    func testOnlyDataAndSocketFoldersBelongToTheServersUser() throws {
        let c = try sandbox()
        var st = stat()
        XCTAssertEqual(lstat(c.directory, &st), 0)
        XCTAssertEqual(st.st_uid, geteuid())
        XCTAssertEqual(st.st_mode & (S_IWGRP | S_IWOTH), 0)
        for entry in ["install", "lib"] {
            XCTAssertEqual(lstat(c.directory + "/" + entry, &st), 0, entry)
            XCTAssertEqual(st.st_uid, geteuid(), entry)
            XCTAssertEqual(st.st_mode & (S_IWGRP | S_IWOTH), 0, entry)
        }
        XCTAssertEqual(c.preloaded.last, "rlskit_sandbox.so")
    }
}
