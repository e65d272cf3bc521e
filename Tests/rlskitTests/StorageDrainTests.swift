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
        try conn.query(
            """
            insert into private.storage_deletion_outbox (bucket_id, object_name)
            values ('avatars', 'u1/old photo.png'), ('avatars', 'u1/broken.png'), ('avatars', 'u1/gone.png')
            """)
        let key = "drain-key-\(UUID().uuidString)"
        let r = try CLI.run(
            [
                "storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", server.url,
                "--service-key-env", "KEY",
            ],
            environment: ["KEY": key])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("2 deleted, 1 failed"), r.stdout)
        XCTAssertFalse(r.output.contains(key))
        let paths = server.received.map(\.path).sorted()
        XCTAssertEqual(
            paths,
            [
                "/storage/v1/object/avatars/u1/broken.png", "/storage/v1/object/avatars/u1/gone.png",
                "/storage/v1/object/avatars/u1/old%20photo.png",
            ])
        XCTAssertTrue(
            server.received.allSatisfy { $0.method == "DELETE" && $0.headers["authorization"] == "Bearer " + key })
        let pending: [String] = try conn.query(
            "select object_name from private.storage_deletion_outbox where sent_at is null"
        ).rows.map { try $0.decode(0) }
        XCTAssertEqual(pending, ["u1/broken.png"])
        XCTAssertEqual(
            try conn.query("select attempts from private.storage_deletion_outbox where object_name = 'u1/broken.png'")
                .rows[0].decode(0) as Int, 1)

        // Stored settings (written by apply) are used when no flags are given; the failure is retried.
        try StorageSettings.write(conn, url: server.url, serviceKey: key)
        let again = try CLI.run(["storage", "drain", "--database-url", db.connectionString.raw])
        XCTAssertEqual(again.code, 1)
        XCTAssertEqual(server.received.count, 4)
        XCTAssertEqual(
            try conn.query("select attempts from private.storage_deletion_outbox where object_name = 'u1/broken.png'")
                .rows[0].decode(0) as Int, 2)
        XCTAssertEqual(try CLI.run(["storage", "sweep", "--database-url", db.connectionString.raw]).code, 2)
    }

    /// Rows the outbox may hold from before the trigger checked names (or written out of band):
    /// none is sent, each stays queued with the reason, and the only request is for the safe one.
    func testDrainRefusesUnsafeRowsAndSendsOnlyStorageObjectPaths() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let server = try TinyHTTPServer()
        let conn = try PostgresConnection(db.connectionString)
        let u = UUID().uuidString.lowercased()
        let unsafe = StorageNames.refused(owner: u, victim: UUID().uuidString.lowercased())
        for name in unsafe + ["\(u)/ok.png"] {
            try conn.query(
                "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', $1)", [name])
        }
        for bucket in ["avatars/..", "..", "a\\b"] {
            try conn.query(
                "insert into private.storage_deletion_outbox (bucket_id, object_name) values ($1, $2)",
                [bucket, "\(u)/b.png"])
        }
        let key = "drain-key-\(UUID().uuidString)"
        let r = try CLI.run(
            [
                "storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", server.url,
                "--service-key-env", "KEY",
            ],
            environment: ["KEY": key])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("1 deleted, 0 failed, \(unsafe.count + 3) refused"), r.stdout)
        XCTAssertEqual(server.received.map(\.path), ["/storage/v1/object/avatars/\(u)/ok.png"])
        XCTAssertFalse(r.output.contains(key))
        // Names are shown escaped: no raw control character reaches the terminal.
        XCTAssertFalse(
            r.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
            r.output.debugDescription)
        let rows = try conn.query(
            "select object_name, attempts, last_error from private.storage_deletion_outbox where sent_at is null order by id"
        ).rows
        XCTAssertEqual(rows.count, unsafe.count + 3)
        for row in rows {
            XCTAssertEqual(try row.decode("attempts") as Int, 0)
            let error: String = try row.decode("last_error")
            XCTAssertTrue(
                error.hasPrefix("refused, not sent: ") && error.contains("(check the row, then delete it)"), error)
        }
        // A second drain refuses them again and still sends nothing.
        XCTAssertEqual(
            try CLI.run(
                [
                    "storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", server.url,
                    "--service-key-env", "KEY",
                ],
                environment: ["KEY": key]
            ).code, 1)
        XCTAssertEqual(server.received.count, 1)
    }

    /// A redirect would carry the service key to wherever the Location points: not followed.
    func testDrainDoesNotFollowRedirects() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let victim = UUID().uuidString.lowercased()
        for code in [301, 302, 307, 308] {
            let server = try TinyHTTPServer(location: "/auth/v1/admin/users/\(victim)") {
                $0.hasPrefix("/storage/") ? code : 200
            }
            let conn = try PostgresConnection(db.connectionString)
            try conn.query("delete from private.storage_deletion_outbox")
            try conn.query(
                "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', 'u1/a.png')")
            let r = try StorageDrain.run(conn, url: server.url, key: "k", timeout: 5)
            XCTAssertEqual(server.received.map(\.path), ["/storage/v1/object/avatars/u1/a.png"], "HTTP \(code)")
            XCTAssertEqual(r.failed.count, 1)
            XCTAssertTrue(
                r.failed.first?.error.contains("redirected to /auth/v1/admin/users/\(victim), not followed") == true,
                "\(r.failed)")
            XCTAssertEqual(
                try conn.query("select count(*)::int from private.storage_deletion_outbox where sent_at is null").rows[
                    0
                ].decode(0) as Int, 1)
        }
    }

    /// A Storage API that accepts and never answers: each deletion gives up after the timeout
    /// asked for (not URLSession's default 60 s) and says so in words.
    func testDrainHonoursItsTimeoutAndSaysSoInWords() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let server = try TinyHTTPServer { _ in nil }
        let conn = try PostgresConnection(db.connectionString)
        try conn.query(
            "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', 'u1/a.png'), ('avatars', 'u1/b.png')"
        )
        let started = Date()
        let r = try StorageDrain.run(conn, url: server.url, key: "k", timeout: 1)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(r.failed.count, 2)
        XCTAssertLessThan(elapsed, 5, "two silent requests with a 1 s timeout took \(elapsed) s")
        XCTAssertEqual(r.failed.first?.error, "no answer from 127.0.0.1:\(server.port) within 1 s (request timed out)")
        let stored: String = try conn.query(
            "select last_error from private.storage_deletion_outbox order by id limit 1"
        ).rows[0].decode(0)
        XCTAssertFalse(stored.contains("NSURLErrorDomain"), stored)
    }

    func testStorageURLWithQueryFragmentOrDotPathIsRefused() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        for url in [
            "http://127.0.0.1:9/?x=", "http://127.0.0.1:9/#", "http://127.0.0.1:9?", "http://127.0.0.1:9/api/../auth",
            "http://127.0.0.1:9/%2e%2e",
        ] {
            let r = try CLI.run(
                [
                    "storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", url,
                    "--service-key-env", "KEY",
                ],
                environment: ["KEY": "k"])
            XCTAssertEqual(r.code, 2, "\(url): \(r.output)")
            XCTAssertTrue(r.stderr.contains("--storage-url"), r.stderr)
        }
    }
    /// A scheme in any case reaches the API, given on the command line and stored by apply:
    /// the request arrives, with the key, on the object's path.
    func testUpperCaseSchemeReachesTheAPI() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let key = "drain-key-\(UUID().uuidString)"
        let server = try TinyHTTPServer()
        let bases = [
            server.url.replacingOccurrences(of: "http://", with: "HTTP://"),
            server.url.replacingOccurrences(of: "http://", with: "hTtP://") + "/",
            "Http://localhost:\(server.port)",
        ]
        for (n, url) in bases.enumerated() {
            let object = "u1/case-\(n).png"
            try conn.query(
                "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', $1)", [object])
            let r = try CLI.run(
                [
                    "storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", url,
                    "--service-key-env", "KEY",
                ],
                environment: ["KEY": key])
            XCTAssertEqual(r.code, 0, "\(url): \(r.output)")
            XCTAssertTrue(r.stdout.contains("1 deleted, 0 failed"), "\(url): \(r.output)")
            XCTAssertEqual(server.received.last?.path, "/storage/v1/object/avatars/" + object, url)
            XCTAssertEqual(server.received.last?.headers["authorization"], "Bearer " + key, url)
        }
        // Stored by apply (in lower case), then used by a drain without flags.
        try conn.query(
            "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', 'u1/stored.png')")
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/m", withIntermediateDirectories: true)
        let applied = try CLI.run(
            [
                "apply", "--database-url", db.connectionString.raw, "--dir", dir + "/m", "--storage-url", bases[0],
                "--service-key-env", "KEY",
            ],
            environment: ["KEY": key], directory: dir)
        XCTAssertEqual(applied.code, 0, applied.output)
        XCTAssertEqual(try StorageDrain.storedSettings(conn)?.url, server.url)
        let r = try CLI.run(["storage", "drain", "--database-url", db.connectionString.raw])
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertEqual(server.received.last?.path, "/storage/v1/object/avatars/u1/stored.png")
    }

    /// An IPv6 literal host, which Foundation's HTTP client cannot reach, is refused up front
    /// by apply and drain with one line: exit 2, nothing stored, nothing sent.
    func testIPv6StorageURLIsRefusedUpFront() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        try conn.query(
            "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', 'u1/a.png')")
        let server = try TinyHTTPServer(ipv6: true)
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/m", withIntermediateDirectories: true)
        for url in [
            server.url, "HTTP://[::ffff:127.0.0.1]:\(server.port)", "https://[fe80::1%25lo]/",
            "http://[0:0:0:0:0:0:0:1]",
        ] {
            for command in [["storage", "drain"], ["apply", "--dir", dir + "/m"]] {
                let r = try CLI.run(
                    command + [
                        "--database-url", db.connectionString.raw, "--storage-url", url, "--service-key-env", "KEY",
                    ],
                    environment: ["KEY": "k"], directory: dir)
                XCTAssertEqual(r.code, 2, "\(command) \(url): \(r.output)")
                XCTAssertEqual(
                    r.stderr,
                    "rlskit: --storage-url has an IPv6 address as its host, which the drain cannot reach: give a host name that resolves to it\n",
                    "\(command) \(url)")
            }
        }
        XCTAssertTrue(server.received.isEmpty)
        XCTAssertNil(try StorageDrain.storedSettings(conn))
    }
    /// A Storage API whose 401 body echoes the service key (a prefix, a suffix, base64,
    /// base64url, percent-encoded): no run of 8 of its characters, in any of those forms,
    /// reaches the output or last_error; the status still does.
    func testEchoedServiceKeyIsMaskedInEveryForm() throws {
        let db = try Provisioned.database(prefix: "drain")
        defer { TestServer.drop(db.name) }
        let key = "sb_secret_" + UUID().uuidString.replacingOccurrences(of: "-", with: "+/")
        let b64 = Data(key.utf8).base64EncodedString()
        let echoes: [String: String] = [
            "prefix": String(key.prefix(16)),
            "suffix": String(key.suffix(12)),
            "base64": b64,
            "base64url": b64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
            "percent": key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
        ]
        let server = try TinyHTTPServer(status: { _ in 401 }) { request in
            let form = request.path.split(separator: "/").last.map { String($0.dropLast(4)) } ?? ""
            return "{\"error\":\"Unauthorized\",\"message\":\"invalid key \(echoes[form] ?? "")\"}"
        }
        let conn = try PostgresConnection(db.connectionString)
        for form in echoes.keys.sorted() {
            try conn.query(
                "insert into private.storage_deletion_outbox (bucket_id, object_name) values ('avatars', $1)",
                ["u1/\(form).png"])
        }
        let r = try CLI.run(
            [
                "storage", "drain", "--database-url", db.connectionString.raw, "--storage-url", server.url,
                "--service-key-env", "KEY",
            ],
            environment: ["KEY": key])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("0 deleted, \(echoes.count) failed"), r.stdout)
        let stored: [String] = try conn.query(
            "select last_error from private.storage_deletion_outbox order by object_name"
        ).rows.map { try $0.decode(0) }
        XCTAssertEqual(stored.count, echoes.count)
        for text in stored + [r.output] {
            XCTAssertTrue(text.contains("HTTP 401"), text)
            for (form, echo) in echoes {
                let e = Array(echo)
                for i in 0...(e.count - 8) {
                    XCTAssertFalse(text.contains(String(e[i..<(i + 8)])), "\(form) \(String(e[i..<(i + 8)])): \(text)")
                }
            }
        }
    }
}
