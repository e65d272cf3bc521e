import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// The sandbox's cached template holds the stand-in and the platform's grants: a cluster
/// started from it has the catalog a cluster gets that installs them itself, and the check's
/// verdicts are the same.
final class PreparedSandboxTests: CacheTestCase {
    /// Everything a project's SQL or the harness can see of the platform, passwords aside.
    static let catalog = """
        select md5(string_agg(x, e'\\n' order by x)) as f, count(*)::int as n from (
          select concat_ws(' ', 'role', rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin,
            rolbypassrls, rolconfig::text) as x from pg_roles
          union all select concat_ws(' ', 'member', roleid::regrole, member::regrole, admin_option) from pg_auth_members
          union all select concat_ws(' ', 'schema', nspname, nspowner::regrole, nspacl::text) from pg_namespace
          union all select concat_ws(' ', 'class', c.oid::regclass, relkind, relowner::regrole, relacl::text,
            relrowsecurity, relforcerowsecurity) from pg_class c where relnamespace::regnamespace::text not like 'pg\\_%'
          union all select concat_ws(' ', 'function', p.oid::regprocedure, proowner::regrole, prosecdef,
            proacl::text, proconfig::text, md5(prosrc)) from pg_proc p
          union all select concat_ws(' ', 'policy', schemaname, tablename, policyname, permissive, roles::text, cmd,
            qual, with_check) from pg_policies
          union all select concat_ws(' ', 'default acl', defaclrole::regrole, defaclnamespace, defaclobjtype,
            defaclacl::text) from pg_default_acl
          union all select concat_ws(' ', 'extension', extname, extversion, extnamespace::regnamespace) from pg_extension
          union all select concat_ws(' ', 'trigger', tgrelid::regclass, tgname, tgenabled) from pg_trigger
          union all select concat_ws(' ', 'sequence', schemaname, sequencename, last_value) from pg_sequences
          union all select concat_ws(' ', 'stand-in', file, checksum) from rlskit.stand_in
        ) t
        """

    func testAPreparedClusterHoldsWhatAFreshInstallMakes() throws {
        var o = try Sandbox.options(PlatformExtensions.clusterOptions(for: []), cache: false)
        o.clusterCache = cache
        o.prepare = Sandbox.prepared
        let first = try LocalCluster(options: o)
        defer { first.stop() }
        XCTAssertFalse(first.isPrepared)
        first.waitForCacheWrite()
        // What a run does without the template.
        var m = Migrator.Options()
        m.projectConnection = first.connectionString
        let installed = try Migrator.run(.none, options: m, on: first.adminConnectionString)
        XCTAssertFalse(installed.standIn?.installed.isEmpty ?? true)

        let second = try LocalCluster(options: o)
        defer { second.stop() }
        XCTAssertTrue(second.isPrepared)
        m.projectConnection = second.connectionString
        m.platformGrantsInstalled = true
        let found = try Migrator.run(.none, options: m, on: second.adminConnectionString)
        XCTAssertEqual(found.standIn?.installed, [], "nothing left to install")

        func catalog(_ c: LocalCluster) throws -> String {
            let conn = try PostgresConnection(c.adminConnectionString)
            defer { conn.close() }
            let row = try conn.query(Self.catalog).rows[0]
            XCTAssertGreaterThan(try row.decode("n") as Int32, 1000)
            return try row.decode("f")
        }
        XCTAssertEqual(try catalog(first), try catalog(second))
    }
}
