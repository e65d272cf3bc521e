import Foundation
import Postgres
import RLSKit
import TestSupport
import XCTest

/// `rlskit storage drain` against a loopback stand-in for the Storage API.
final class StorageDrainTests: XCTestCase {
    func testDrainSendsQueuedDeletionsAndKeepsFailures() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let server = try TinyHTTPServer { $0.contains("broken") ? 500 : ($0.contains("gone") ? 404 : 200) }
        let conn = try PostgresConnection(db.connectionString)
        try conn.query("""
            insert into private.storage_deletion_outbox (bucket_id, object_name)
            values ('avatars', 'u1/old photo.png'), ('avatars', 'u1/broken.png'), ('avatars', 'u1/gone.png')
            """)
        let key = "drain-key-\(UUID().uuidString)"
        let r = try CLI.run(["storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", server.url, "--service-key-env", "KEY"],
                            environment: ["KEY": key])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("2 deleted, 1 failed"), r.stdout)
        XCTAssertFalse(r.output.contains(key))
        let paths = server.received.map(\.path).sorted()
        XCTAssertEqual(paths, ["/storage/v1/object/avatars/u1/broken.png", "/storage/v1/object/avatars/u1/gone.png", "/storage/v1/object/avatars/u1/old%20photo.png"])
        XCTAssertTrue(server.received.allSatisfy { $0.method == "DELETE" && $0.headers["authorization"] == "Bearer " + key })
        let pending: [String] = try conn.query("select object_name from private.storage_deletion_outbox where sent_at is null").rows.map { try $0.decode(0) }
        XCTAssertEqual(pending, ["u1/broken.png"])
        XCTAssertEqual(try conn.query("select attempts from private.storage_deletion_outbox where object_name = 'u1/broken.png'").rows[0].decode(0) as Int, 1)

        // Stored settings (written by apply) are used when no flags are given; the failure is retried.
        try StorageSettings.write(conn, url: server.url, serviceKey: key)
        let again = try CLI.run(["storage", "drain", "--database-url", db.connectionString.raw])
        XCTAssertEqual(again.code, 1)
        XCTAssertEqual(server.received.count, 4)
        XCTAssertEqual(try conn.query("select attempts from private.storage_deletion_outbox where object_name = 'u1/broken.png'").rows[0].decode(0) as Int, 2)
        XCTAssertEqual(try CLI.run(["storage", "sweep", "--database-url", db.connectionString.raw]).code, 2)
    }
}
