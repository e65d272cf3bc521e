import Foundation
import TestSupport
import XCTest

/// What supautils lets the platform's postgres do that plain PostgreSQL keeps for superusers:
/// PostgREST's role settings (`pgrst.*`), `notify pgrst`, BYPASSRLS and REPLICATION on roles it
/// creates or alters. What it refuses there fails here with "it would fail there too"; what the
/// record does not cover never says so.
final class SupautilsAllowancesCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func project(migrations: [String: String], tests: [String: String] = [:]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (sub, files) in [("m", migrations), ("t", tests)] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
            for (n, t) in files { try t.write(toFile: dir + "/\(sub)/" + n, atomically: true, encoding: .utf8) }
        }
        return dir
    }

    func apply(_ dir: String) throws -> CLI.Outcome {
        try CLI.run(["apply", "--dir", dir + "/m"], environment: ["TMPDIR": dir], directory: dir)
    }

    func testPostgRESTSettingsNotifyAndBypassRLSApply() throws {
        let dir = try project(
            migrations: [
                "0001_pgrst.sql": """
                alter role authenticator set pgrst.db_aggregates_enabled = 'true';
                create function public.check_request() returns void language plpgsql as $$ begin end $$;
                alter role authenticator set pgrst.db_pre_request to 'public.check_request';
                alter role authenticator in database postgres set pgrst.db_max_rows = '500';
                alter role authenticator in database postgres reset pgrst.db_max_rows;
                alter role anon set pgrst.db_plan_enabled = 'false';
                notify pgrst, 'reload schema';
                notify pgrst, 'reload config';
                select pg_notify('pgrst', 'reload schema');

                """,
                "0002_roles.sql": """
                create user "prisma" with password 'custom_password' bypassrls createdb;
                create role app_worker nologin bypassrls;
                alter role app_worker replication;
                alter role app_worker nobypassrls;
                alter role app_worker set track_io_timing = 'on';

                """,
            ],
            tests: [
                "roles_test.sql": """
                begin;
                select plan(4);
                select is((select rolbypassrls from pg_roles where rolname = 'prisma'), true, 'prisma bypasses RLS');
                select is((select rolreplication and not rolbypassrls from pg_roles where rolname = 'app_worker'), true,
                          'app_worker replicates, no longer bypasses RLS');
                select ok((select setconfig @> '{pgrst.db_aggregates_enabled=true,pgrst.db_pre_request=public.check_request}'
                             from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
                            where r.rolname = 'authenticator' and s.setdatabase = 0), 'PostgREST settings stored');
                select is((select rolsuper from pg_roles where rolname = 'prisma'), false, 'no superuser');
                select * from finish();
                rollback;

                """
            ])
        let r = try CLI.run(
            ["check", "--dir", dir + "/m", "--tests", dir + "/t"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertTrue(r.stdout.contains("2 migrations applied"), r.output)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +4 passed, 0 failed"#, options: .regularExpression), r.output)
    }

    /// SUPERUSER, the platform's own roles and settings outside supautils' list stay refused,
    /// with supautils' words, and the line says the platform refuses them too.
    func testWhatSupautilsRefusesFailsAsThere() throws {
        let dir = try project(migrations: ["0001_role.sql": "create role app_worker nologin;\n"])
        let refused = [
            ("create role boss superuser;", "permission denied to create role: Only roles with the SUPERUSER"),
            ("alter role app_worker superuser;", "permission denied to alter role: Only roles with the SUPERUSER"),
            ("alter role postgres bypassrls;", "permission denied to alter role: Only superusers can alter privileged"),
            ("alter role authenticator bypassrls;", "\"authenticator\" is a reserved role"),
            (
                "alter role app_worker set log_statement = 'all';",
                "permission denied to set parameter \"log_statement\""
            ),
            ("create role spy in role pg_read_server_files;", "\"pg_read_server_files\" role memberships are reserved"),
        ]
        for (k, (sql, message)) in refused.enumerated() {
            let file = dir + "/m/000\(2 + k)_refused.sql"
            try ("\n" + sql + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let f = try apply(dir)
            XCTAssertEqual(f.code, 3, sql + "\n" + f.output)
            XCTAssertTrue(f.stderr.contains("_refused.sql:2:1: " + message), sql + "\n" + f.stderr)
            XCTAssertTrue(f.stderr.contains("it would fail there too"), f.stderr)
            XCTAssertEqual(f.stderr.split(separator: "\n").count, 1, f.stderr)
            try FileManager.default.removeItem(atPath: file)
        }
    }

    /// A refusal the record says nothing about does not claim the platform refuses it.
    func testUnrecordedRefusalDoesNotClaimThePlatform() throws {
        for sql in [
            "create subscription mine connection 'dbname=postgres' publication p with (connect = false);",
            "create table public.t (id int);\nset role app_nobody;",
        ] {
            let dir = try project(migrations: ["0001_a.sql": "create role app_nobody nologin;\n" + sql + "\n"])
            let r = try apply(dir)
            XCTAssertEqual(r.code, 3, r.output)
            XCTAssertTrue(r.stderr.contains("0001_a.sql:"), r.stderr)
            if sql.hasPrefix("create subscription") {
                XCTAssertFalse(r.stderr.contains("would fail there too"), r.stderr)
                XCTAssertTrue(r.stderr.contains("does not say whether Supabase allows it"), r.stderr)
            } else {
                // postgres is no member of a role it created, there as here.
                XCTAssertTrue(r.stderr.contains("permission denied to set role"), r.stderr)
                XCTAssertTrue(r.stderr.contains("would fail there too"), r.stderr)
            }
        }
    }
}
