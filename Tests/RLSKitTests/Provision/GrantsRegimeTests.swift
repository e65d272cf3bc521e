import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// The two grants regimes: chosen from --grants, config.toml or the migrations' dates, and
/// modelled with the default privileges the platform used.
final class GrantsRegimeTests: XCTestCase {
    var dbs: [String] = []
    var dirs: [String] = []

    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
        for d in dbs { TestServer.drop(d) }
    }

    func testChoiceFollowsFlagThenConfigThenDates() throws {
        let old = ["20240101000000", "20250101000000"]
        XCTAssertEqual(
            GrantsRegime.choose(given: Setting(.explicit, from: .given("--grants")), config: nil, versions: old).mode,
            .explicit)
        var config = SupabaseConfig(path: "supabase/config.toml")
        config.autoExposeNewTables = false
        let fromFile = GrantsRegime.choose(given: nil, config: config, versions: old)
        XCTAssertEqual(fromFile.mode, .explicit)
        XCTAssertEqual(fromFile.reason, "from supabase/config.toml [api] auto_expose_new_tables = false")
        XCTAssertEqual(
            GrantsRegime.choose(given: Setting(.automatic, from: .given("--grants")), config: config, versions: [])
                .mode, .automatic)

        let before = GrantsRegime.choose(given: nil, config: nil, versions: old)
        XCTAssertEqual(before.mode, .automatic)
        XCTAssertNil(before.explicitFrom)
        let spanning = GrantsRegime.choose(given: nil, config: nil, versions: old + ["20261101000000"])
        XCTAssertEqual(spanning.explicitFrom, "20261101000000")
        XCTAssertTrue(spanning.automatic(at: "20250101000000"))
        XCTAssertFalse(spanning.automatic(at: "20261101000000"))
        XCTAssertEqual(GrantsRegime.choose(given: nil, config: nil, versions: ["20260601000000"]).mode, .explicit)
        // The switch day itself counts as after it; the summary says so and --grants overrides it.
        XCTAssertEqual(
            GrantsRegime.choose(given: nil, config: nil, versions: ["20260530175738"]).reason,
            "the first migration, 20260530175738, is from 2026-05-30 on, when new projects lost them")
        XCTAssertEqual(GrantsRegime.choose(given: nil, config: nil, versions: ["0001", "0002"]).mode, .explicit)
    }

    func testAutomaticGrantsTablesCreatedBeforeTheSwitchOnly() throws {
        let db = try TestServer.makeDatabase(prefix: "grants")
        dbs.append(db.name)
        let conn = try PostgresConnection(db.connectionString)
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (name, sql) in [
            ("20240101000000_old.sql", "create table public.old_t (x int);\ncreate sequence public.old_s;"),
            ("20261101000000_new.sql", "create table public.new_t (x int);"),
        ] {
            try sql.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        var o = Migrator.Options()
        o.grants = GrantsRegime.choose(given: nil, config: nil, versions: ["20240101000000", "20261101000000"])
        _ = try Migrator(conn, source: .directory(dir), options: o).run()
        func can(_ role: String, _ object: String, _ privilege: String = "select") throws -> Bool {
            try conn.query("select has_table_privilege($1, $2, $3) as ok", [role, object, privilege]).rows[0].decode(
                "ok")
        }
        for role in ["anon", "authenticated", "service_role"] {
            XCTAssertTrue(try can(role, "public.old_t", "delete"), role)
            XCTAssertFalse(try can(role, "public.new_t"), role)
        }
        let usage: Bool = try conn.query("select has_sequence_privilege('anon', 'public.old_s', 'usage') as ok").rows[0]
            .decode("ok")
        XCTAssertTrue(usage)
    }

    func testDeniedByPrivilegeNamesTheRegime() {
        let report = TestReport(outcomes: [
            TestOutcome(
                suite: "s", name: "n", status: .failed,
                message: "expected: 1 row; got: denied by privilege (42501: permission denied for table t)")
        ])
        let regime = GrantsRegime(mode: .explicit, reason: "from --grants")
        let m = report.naming(regime).outcomes[0].message ?? ""
        XCTAssertTrue(
            m.hasSuffix(
                "— grants are explicit here (from --grants); the migrations must GRANT to the API roles, or pass --grants automatic (or set [api] auto_expose_new_tables = true) if production gave them automatically"
            ), m)
    }
}
