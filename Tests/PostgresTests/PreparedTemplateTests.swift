import Foundation
import Postgres
import TestSupport
import XCTest

/// A cached template that holds `Options.prepare`'s work: built beside the first run, on a
/// cluster of its own shut down cleanly; later runs start from it with their own passwords and
/// find the work done (sequences as a fresh install leaves them), and neither the roles'
/// setup nor the install runs again. A different key is a different template.
final class PreparedTemplateTests: CacheTestCase {
    static let install = """
        create table public.made (id bigserial primary key, note text);
        insert into public.made (note) values ('once');
        grant select on public.made to postgres;
        """

    func options(key: String = "v1") -> LocalCluster.Options {
        var o = LocalCluster.Options()
        // Fails if run twice on one cluster: a template holding the roles must skip it.
        o.bootstrap = LocalCluster.Bootstrap(
            superuser: "cluster_admin", setup: "create role postgres login nosuperuser;")
        o.clusterCache = cache
        o.prepare = LocalCluster.Prepare(key: key) { c in
            let conn = try PostgresConnection(c.adminConnectionString)
            defer { conn.close() }
            _ = try conn.runScript(Self.install)
        }
        return o
    }

    func ready() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).filter { $0.contains("-ready-") }
    }

    func made(_ c: LocalCluster) throws -> Bool {
        let conn = try PostgresConnection(c.connectionString)
        defer { conn.close() }
        return try conn.query("select to_regclass('public.made') is not null as x").rows[0].decode("x")
    }

    func testTheFirstRunBuildsItAndTheNextStartsFromIt() throws {
        let first = try LocalCluster(options: options())
        XCTAssertFalse(first.isPrepared)
        XCTAssertFalse(try made(first), "the first run's own cluster is left as initdb made it")
        first.waitForCacheWrite()
        first.stop()
        XCTAssertEqual(ready().count, 1)

        let second = try LocalCluster(options: options())
        defer { second.stop() }
        XCTAssertTrue(second.isPrepared)
        XCTAssertTrue(try made(second))
        let admin = try PostgresConnection(second.adminConnectionString)
        defer { admin.close() }
        // A clean shutdown: the sequence goes on from where the install left it, not 32 later.
        XCTAssertEqual(try admin.query("select nextval('public.made_id_seq') as n").rows[0].decode("n") as Int64, 2)
        XCTAssertEqual(try admin.query("select count(*)::int as n from public.made").rows[0].decode("n") as Int32, 1)
        // Its own passwords: postgres logs in and is no superuser.
        let pg = try PostgresConnection(second.connectionString)
        defer { pg.close() }
        XCTAssertFalse(
            try pg.query("select rolsuper from pg_roles where rolname = current_user").rows[0].decode(0) as Bool)
        // The third run copies it too, and nothing is built again.
        let third = try LocalCluster(options: options())
        defer { third.stop() }
        XCTAssertTrue(third.isPrepared)
        XCTAssertNil(third.cacheWriteForTests)
    }

    func testAnotherKeyIsAnotherTemplate() throws {
        let a = try LocalCluster(options: options(key: "a"))
        a.stop()
        let b = try LocalCluster(options: options(key: "b"))
        XCTAssertFalse(b.isPrepared)
        b.stop()
        XCTAssertEqual(ready().count, 2)
        let again = try LocalCluster(options: options(key: "a"))
        defer { again.stop() }
        XCTAssertTrue(again.isPrepared)
    }

    /// An install that fails keeps nothing: every run goes on as before, and works.
    func testAFailingInstallKeepsNothing() throws {
        var o = options()
        o.prepare = LocalCluster.Prepare(key: "bad") { _ in throw LocalClusterErrorForTests() }
        let first = try LocalCluster(options: o)
        first.stop()
        XCTAssertEqual(ready(), [])
        let second = try LocalCluster(options: o)
        defer { second.stop() }
        XCTAssertFalse(second.isPrepared)
        XCTAssertFalse(try made(second))
    }
}

struct LocalClusterErrorForTests: Error {}
