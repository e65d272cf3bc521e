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
            "select public.project_fn()", "select public.project_sql()", "insert into public.victim values (1)",
            "select * from public.calls", "select 1 where public.project_sql() = 2",
        ] {
            refused(admin, sql, "would run with superuser rights")
        }
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
        // The sandbox's own settings are fixed while the server runs.
        XCTAssertThrowsError(try admin.query("set rlskit_sandbox.reserved_roles = ''"))
    }

    /// Nothing inside the server logs in without the run's password.
    func testEveryLoginNeedsTheRunsPassword() throws {
        let c = try sandbox()
        for user in ["supabase_admin", "postgres"] {
            XCTAssertThrowsError(
                try PostgresConnection(
                    ConnectionString(
                        "host=\(ConnectionString.quoted(c.directory + "/run")) dbname=postgres user=\(user)"))
            ) { error in
                XCTAssertTrue("\(error)".contains("password"), "\(error)")
            }
        }
        let secret = try XCTUnwrap(try c.connectionString.options()["password"])
        XCTAssertEqual(secret.count, 64)
        XCTAssertFalse(c.connectionString.description.contains(secret))
        XCTAssertNotEqual(try c.adminConnectionString.options()["password"], secret)
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
