import Foundation
import Postgres
import XCTest

@testable import RLSKit

/// `PlatformRole.bootstrap`: the cluster's superuser is supabase_admin, and postgres has the
/// platform's attributes; trusted extensions are creatable by postgres, others are not.
final class PlatformRoleTests: XCTestCase {
    func testPostgresIsNotASuperuserTheAdminIs() throws {
        var options = LocalCluster.Options()
        options.bootstrap = PlatformRole.bootstrap
        options.extensionFiles = [
            "probe_untrusted.control": "default_version = '1.0'\nrelocatable = true\n",
            "probe_untrusted--1.0.sql": "create function probe_answer() returns int language sql as 'select 42';\n",
        ]
        options.trustedExtensions = ["pgrowlocks"]
        try withLocalCluster(options: options) { cluster in
            let pg = try PostgresConnection(cluster.connectionString)
            let row = try pg.query(
                """
                select current_user::text as who, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls
                  from pg_roles where rolname = current_user
                """
            ).rows[0]
            XCTAssertEqual(try row.decode("who") as String, "postgres")
            XCTAssertFalse(try row.decode("rolsuper") as Bool)
            for attribute in ["rolcreaterole", "rolcreatedb", "rolreplication", "rolbypassrls"] {
                XCTAssertTrue(try row.decode(attribute) as Bool, attribute)
            }
            try pg.query("create table public.mine (id int)")
            try pg.query("create extension pgrowlocks")
            XCTAssertThrowsError(try pg.query("create extension probe_untrusted")) { error in
                XCTAssertEqual((error as? PostgresError)?.sqlState, "42501", "\(error)")
            }
            let admin = try PostgresConnection(cluster.adminConnectionString)
            let a = try admin.query(
                "select current_user::text as who, rolsuper from pg_roles where rolname = current_user"
            )
            .rows[0]
            XCTAssertEqual(try a.decode("who") as String, "supabase_admin")
            XCTAssertTrue(try a.decode("rolsuper") as Bool)
            XCTAssertNil(cluster.extensionNote)
        }
    }
}
