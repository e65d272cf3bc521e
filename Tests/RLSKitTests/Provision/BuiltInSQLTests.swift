import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

final class BuiltInSQLTests: XCTestCase {
    /// The copy compiled into the binary (EmbedSQL plugin) equals sql/ byte for byte.
    func testEmbeddedCopyMatchesSQLDirectory() throws {
        let root = Provisioned.repositoryRoot + "/sql"
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: root).filter {
            var d: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &d) && !d.boolValue
                && !$0.hasSuffix(".md")
        }.sorted()
        XCTAssertEqual(BuiltInSQL.all.map(\.path).sorted(), onDisk)
        for (path, contents) in BuiltInSQL.all {
            let disk = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            XCTAssertTrue(disk == contents, "\(path) differs from its embedded copy")
        }
        XCTAssertEqual(
            BuiltInSQL.files(in: "compat").map(\.name),
            [
                "00_roles", "10_extensions", "20_auth", "25_auth_tables", "26_auth_sso", "30_storage",
                "35_storage_functions",
                "40_platform",
            ])
        XCTAssertFalse(BuiltInSQL.files(in: "migrations").isEmpty)
    }

    func testSHA256MatchesTheServer() throws {
        let conn = try TestServer.connect()
        for text in [
            "", "abc", String(repeating: "x", count: 55), String(repeating: "y", count: 64),
            "héllo\n" + String(repeating: "z", count: 1000),
        ] {
            let server: String = try conn.query("select encode(sha256(convert_to($1, 'UTF8')), 'hex') as h", [text])
                .rows[0].decode("h")
            XCTAssertEqual(SHA256.hex(Array(text.utf8)), server)
        }
    }

    func testVersionsAndHeaders() {
        let f = SQLFile(
            path: "x/20240101120000_add_things.sql",
            contents: "-- comment\n-- rlskit:no-transaction\ncreate index concurrently i on t (x);")
        XCTAssertEqual(f.version, "20240101120000")
        XCTAssertEqual(f.name, "20240101120000_add_things")
        XCTAssertTrue(f.runsOutsideTransaction)
        XCTAssertFalse(SQLFile(path: "a.sql", contents: "select 1;\n-- rlskit:no-transaction").runsOutsideTransaction)
    }
}
