import Foundation
import Postgres
import XCTest

final class LocalClusterTests: XCTestCase {
    func testStartsConnectsAndIsGoneAfterStop() throws {
        let cluster = try LocalCluster()
        let dir = cluster.directory
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/data/PG_VERSION"))
        let conn = try PostgresConnection(cluster.connectionString)
        XCTAssertEqual(
            try conn.query("select setting from pg_settings where name = 'listen_addresses'").rows[0].decode("setting")
                as String, "")
        XCTAssertTrue(
            try conn.query("select rolsuper from pg_roles where rolname = current_user").rows[0].decode("rolsuper")
                as Bool)
        XCTAssertTrue(cluster.isRunning)
        cluster.stop()
        XCTAssertFalse(cluster.isRunning)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
        cluster.stop()
    }

    func testGoneAfterThrownError() throws {
        struct Failure: Error {}
        var dir = ""
        var holder: LocalCluster?
        XCTAssertThrowsError(
            try withLocalCluster { c in
                dir = c.directory
                holder = c
                throw Failure()
            })
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
        XCTAssertFalse(holder!.isRunning)
    }

    func testFindsBinaries() throws {
        let bin = try LocalCluster.findBinDirectory()
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: bin + "/initdb"))
    }
}
