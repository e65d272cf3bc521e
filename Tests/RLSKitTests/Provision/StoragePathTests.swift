import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// The storage path rules in SQL (private.storage_path_problem and the URL builder) and in
/// Swift (StoragePath) over one table of hostile names, and against each other on generated ones.
final class StoragePathTests: XCTestCase {
    static let owner = "6f1c8a52-3d1e-4c55-9a1b-2b7f7a0f0001", victim = "0b9d2e11-7c4a-4f7e-8d3c-5a6b7c8d0002"
    static let base = "https://abc.supabase.co/"

    func connection() throws -> PostgresConnection {
        let db = try Provisioned.database(prefix: "paths")
        addTeardownBlock { TestServer.drop(db.name) }
        return try PostgresConnection(db.connectionString)
    }

    /// For each name: the SQL problem (or nil) and the SQL URL (or the SQLSTATE it raised).
    func sql(_ c: PostgresConnection, bucket: String = "avatars", _ names: [String]) throws -> [(
        problem: String?, url: String?
    )] {
        let json = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
        try c.query(
            """
            create or replace function pg_temp.url_or_error(base text, b text, n text) returns text language plpgsql as $$
            begin return private.storage_object_url(base, b, n);
            exception when sqlstate '22023' then return null; end $$
            """)
        return try c.query(
            """
            select private.storage_path_problem($2, n) as problem, pg_temp.url_or_error($3, $2, n) as url
            from jsonb_array_elements_text($1::jsonb) with ordinality as t(n, i) order by i
            """, [json, bucket, Self.base]
        ).rows.map { (try $0.decode("problem"), try $0.decode("url")) }
    }

    func testHostileNamesAreRefusedBySQLAndSwiftAndGetNoURL() throws {
        let c = try connection()
        let names = StorageNames.refused(owner: Self.owner, victim: Self.victim)
        for (name, r) in zip(names, try sql(c, names)) {
            XCTAssertNotNil(r.problem, "SQL accepts \(name.debugDescription)")
            XCTAssertNil(r.url, "SQL builds a URL for \(name.debugDescription)")
            XCTAssertNotNil(
                StoragePath.problem(bucket: "avatars", name: name), "Swift accepts \(name.debugDescription)")
            XCTAssertThrowsError(try StoragePath.url(base: Self.base, bucket: "avatars", name: name))
            // The encoder alone refuses too, so no other caller can build such a path, and the
            // deletion request (here the outbox backend) queues nothing.
            for call in [
                "select private.urlencode_object_path($1)", "select private.request_storage_deletion('avatars', $1)",
            ] {
                XCTAssertThrowsError(try c.query(call, [name])) {
                    XCTAssertEqual(($0 as? PostgresError)?.sqlState, "22023", name.debugDescription)
                }
            }
        }
        XCTAssertEqual(
            try c.query("select count(*)::int from private.storage_deletion_outbox").rows[0].decode(0) as Int, 0)
        try c.query("select private.request_storage_deletion('avatars', $1)", ["\(Self.owner)/a.png"])
        XCTAssertEqual(
            try c.query("select count(*)::int from private.storage_deletion_outbox").rows[0].decode(0) as Int, 1)
        // SQL text cannot hold NUL; the drain's check refuses it anyway.
        XCTAssertNotNil(StoragePath.problem(bucket: "avatars", name: "\(Self.owner)/a\u{0}b"))
    }

    func testAcceptedNamesGetTheSameURLInSQLAndSwift() throws {
        let c = try connection()
        let names = StorageNames.accepted(owner: Self.owner)
        for (name, r) in zip(names, try sql(c, names)) {
            XCTAssertNil(r.problem, name.debugDescription)
            XCTAssertNil(StoragePath.problem(bucket: "avatars", name: name), name.debugDescription)
            let url = try StoragePath.url(base: Self.base, bucket: "avatars", name: name)
            XCTAssertEqual(r.url, url.absoluteString, name.debugDescription)
            XCTAssertTrue(
                url.absoluteString.hasPrefix("https://abc.supabase.co/storage/v1/object/avatars/\(Self.owner)/"),
                url.absoluteString)
            XCTAssertNil(url.query)
            XCTAssertNil(url.fragment)
        }
    }

    func testBucketIdsAreOneSafeSegment() throws {
        let c = try connection()
        for bucket in ["ava/tars", "..", ".", "", "a\\b", "%2e%2e", "a\nb", "\u{FF0E}\u{FF0E}"] {
            XCTAssertNotNil(try sql(c, bucket: bucket, ["\(Self.owner)/a.png"])[0].problem, bucket.debugDescription)
            XCTAssertNotNil(StoragePath.problem(bucket: bucket, name: "\(Self.owner)/a.png"), bucket.debugDescription)
        }
        XCTAssertNil(try sql(c, bucket: "post-images", ["a.png"])[0].problem)
    }

    /// A stored API URL with a query or fragment would swallow the object path: refused in SQL too.
    func testSQLURLBuilderRefusesABaseThatWouldSwallowThePath() throws {
        let c = try connection()
        for base in ["https://x.co/?", "https://x.co/#", "https://x.co/a b", "https://x.co/\n"] {
            XCTAssertThrowsError(
                try c.query("select private.storage_object_url($1, 'avatars', 'u/a.png')", [base]),
                base.debugDescription
            ) {
                XCTAssertEqual(($0 as? PostgresError)?.sqlState, "22023")
            }
        }
    }

    /// Generated names: SQL and Swift agree on every refusal and every URL.
    func testSQLAndSwiftAgreeOnGeneratedNames() throws {
        let c = try connection()
        let seed: UInt64 = 20_240_601
        let count = 3000
        let names = StorageNames.generated(count: count, seed: seed)
        let started = Date()
        var refused = 0
        for (name, r) in zip(names, try sql(c, names)) {
            let swift = StoragePath.problem(bucket: "avatars", name: name)
            XCTAssertEqual(
                r.problem == nil, swift == nil,
                "seed \(seed): \(name.debugDescription): SQL \(r.problem ?? "accepts"), Swift \(swift ?? "accepts")")
            if swift == nil {
                XCTAssertEqual(
                    r.url, try StoragePath.url(base: Self.base, bucket: "avatars", name: name).absoluteString,
                    name.debugDescription)
            } else {
                refused += 1
            }
        }
        // Both outcomes are exercised, not just one.
        XCTAssertGreaterThan(refused, count / 10)
        XCTAssertLessThan(refused, count - count / 10)
        print(
            "storage path differential: \(count) names, \(refused) refused, \(String(format: "%.2f", Date().timeIntervalSince(started))) s"
        )
    }
}
