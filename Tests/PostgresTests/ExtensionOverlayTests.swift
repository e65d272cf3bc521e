import Foundation
import XCTest

@testable import Postgres

final class ExtensionOverlayTests: XCTestCase {
    static let control =
        "comment = 'rlskit stand-in: test'\ndefault_version = '1.0'\nrelocatable = false\ntrusted = true\n"
    static let script =
        "create function @extschema@.overlay_answer() returns integer language sql as $$ select 42 $$;\n"

    /// Offered files become real extensions: pg_extension rows, `with schema`, `if not exists`,
    /// `cascade`, `drop extension`; the server's own extensions still work.
    func testOfferedExtensionsInstallAndDrop() throws {
        var options = LocalCluster.Options()
        options.extensionFiles = [
            "overlay_test.control": Self.control + "requires = 'pgcrypto'\n", "overlay_test--1.0.sql": Self.script,
            "citext.control": Self.control, "citext--1.0.sql": Self.script,
        ]
        try withLocalCluster(options: options) { cluster in
            XCTAssertNil(cluster.extensionNote)
            let conn = try PostgresConnection(cluster.connectionString)
            let share: String = try conn.query("select setting from pg_config where name = 'SHAREDIR'").rows[0].decode(
                "setting")
            XCTAssertTrue(share.hasPrefix(cluster.directory + "/"), share)
            try conn.query("create schema tools")
            try conn.query("create extension overlay_test with schema tools cascade")
            try conn.query("create extension if not exists overlay_test with schema tools")
            XCTAssertEqual(try conn.query("select tools.overlay_answer() as a").rows[0].decode("a") as Int, 42)
            let rows = try conn.query(
                "select extname::text as n from pg_extension where extname in ('overlay_test', 'pgcrypto') order by 1"
            ).rows
            XCTAssertEqual(try rows.map { try $0.decode("n") as String }, ["overlay_test", "pgcrypto"])
            try conn.query("drop extension overlay_test")
            XCTAssertNil(
                try conn.query("select to_regproc('tools.overlay_answer') as f").rows[0].decode("f") as String?)
            try conn.query("create extension citext")
            let comment: String = try conn.query(
                "select obj_description(oid, 'pg_extension') as c from pg_extension where extname = 'citext'"
            ).rows[0].decode("c")
            XCTAssertFalse(comment.hasPrefix("rlskit stand-in"), "the server's own citext must win over an offered one")
        }
    }

    func testTailsBelowTheCommonPrefix() {
        let debian = ExtensionOverlay.Layout(
            bin: "/usr/lib/postgresql/15/bin", share: "/usr/share/postgresql/15", lib: "/usr/lib/postgresql/15/lib")
        XCTAssertEqual(
            ExtensionOverlay.tails(debian),
            .init(bin: "lib/postgresql/15/bin", share: "share/postgresql/15", lib: "lib/postgresql/15/lib"))
        let source = ExtensionOverlay.Layout(bin: "/opt/pg/bin", share: "/opt/pg/share", lib: "/opt/pg/lib")
        XCTAssertEqual(ExtensionOverlay.tails(source), .init(bin: "bin", share: "share", lib: "lib"))
        XCTAssertNil(ExtensionOverlay.tails(.init(bin: "/bin", share: "/share", lib: "/lib")))
    }

    /// Libraries asked for are preloaded only where the server has them.
    func testPreloadsOnlyInstalledLibraries() throws {
        var options = LocalCluster.Options()
        options.preloadLibraries = ["pg_stat_statements", "no_such_library"]
        try withLocalCluster(options: options) { cluster in
            XCTAssertEqual(cluster.preloaded, ["pg_stat_statements"])
            let conn = try PostgresConnection(cluster.connectionString)
            XCTAssertEqual(
                try conn.query("select current_setting('shared_preload_libraries') as s").rows[0].decode("s") as String,
                "pg_stat_statements")
        }
    }

    /// Without pg_config beside the server the layout is unknown: the server runs as it is,
    /// without the offered files, and says so.
    func testUnknownLayoutRunsWithoutTheFiles() throws {
        let bin = try LocalCluster.findBinDirectory()
        let dir = NSTemporaryDirectory() + "rlskit-bin-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for tool in ["initdb", "postgres"] {
            try FileManager.default.createSymbolicLink(atPath: dir + "/" + tool, withDestinationPath: bin + "/" + tool)
        }
        setenv("RLSKIT_PG_BINDIR", dir, 1)
        defer { unsetenv("RLSKIT_PG_BINDIR") }
        var options = LocalCluster.Options()
        options.extensionFiles = ["overlay_test.control": Self.control, "overlay_test--1.0.sql": Self.script]
        try withLocalCluster(options: options) { cluster in
            XCTAssertNotNil(cluster.extensionNote)
            let conn = try PostgresConnection(cluster.connectionString)
            XCTAssertThrowsError(try conn.query("create extension overlay_test"))
        }
    }
}
