import Foundation
import Postgres
import TestSupport
import XCTest

final class ValuesTests: XCTestCase {
    var conn: PostgresConnection!
    override func setUpWithError() throws { conn = try TestServer.connect() }

    func roundTrip<T: PostgresEncodable & PostgresDecodable & Equatable>(
        _ v: T, as sqlType: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let r = try conn.query("select $1::\(sqlType) as v", [v])
        XCTAssertEqual(try r.rows[0].decode("v") as T, v, file: file, line: line)
        XCTAssertEqual(try r.rows[0].decode(0) as T, v, file: file, line: line)
    }

    func testRoundTrips() throws {
        try roundTrip("héllo 'quoted' \\ ; drop table x", as: "text")
        try roundTrip(Int(-9_007_199_254_740_993), as: "int8")
        try roundTrip(Int64.max, as: "int8")
        try roundTrip(Int32.min, as: "int4")
        try roundTrip(3.25, as: "float8")
        try roundTrip(true, as: "bool")
        try roundTrip(false, as: "bool")
        try roundTrip(UUID(), as: "uuid")
        try roundTrip(Data([0, 1, 2, 255, 128]), as: "bytea")
        try roundTrip(["a", "b c", "with \"quote\"", "back\\slash", "NULL", ""], as: "text[]")
        try roundTrip([String](), as: "text[]")
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let back: Date = try conn.query("select $1::timestamptz as v", [date]).rows[0].decode("v")
        XCTAssertEqual(back.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 0.000_001)
    }

    func testDateWithOffsetAndInfinityHandling() throws {
        try conn.query("set timezone = 'Asia/Kolkata'")
        let d: Date = try conn.query("select '2024-02-29 12:00:00+00'::timestamptz as v").rows[0].decode("v")
        XCTAssertEqual(d.timeIntervalSince1970, 1_709_208_000, accuracy: 0.001)
        XCTAssertThrowsError(try conn.query("select 'infinity'::timestamptz as v").rows[0].decode("v") as Date) { e in
            XCTAssertTrue("\(e)".contains("\"v\""))
        }
    }

    func testNullsAreExplicit() throws {
        let r = try conn.query("select null::text as t, null::int as i, $1::text as p", [Optional<String>.none])
        let row = r.rows[0]
        XCTAssertTrue(row.isNull(0))
        XCTAssertNil(try row.decode("t") as String?)
        XCTAssertNil(try row.decode("i") as Int?)
        XCTAssertNil(try row.decode("p") as String?)
        XCTAssertThrowsError(try row.decode("t") as String) { e in
            let err = e as! RowDecodingError
            XCTAssertEqual(err.column, "t")
            XCTAssertTrue(err.reason.contains("NULL"))
        }
        XCTAssertEqual(try conn.query("select $1::int as v", [Optional(5)]).rows[0].decode("v") as Int?, 5)
    }

    func testDecodingMistakesNameColumnAndType() throws {
        let row = try conn.query("select 'abc'::text as word").rows[0]
        XCTAssertThrowsError(try row.decode("word") as Int) { e in
            XCTAssertEqual(
                "\(e)", "cannot read column \"word\" as Int: a value of 3 characters of type oid 25 is not a valid Int")
        }
        XCTAssertThrowsError(try row.decode("missing") as String) { e in
            XCTAssertTrue("\(e)".contains("\"missing\""))
        }
        XCTAssertThrowsError(try row.decode(3) as String)
        // A value that cannot be read never appears in the error: it may be a secret.
        let secret = try conn.query(
            "select 'sk_live_S3cretValue'::text as token, '{\"name\": \"sk_live_S3cretValue\"}'::jsonb as doc"
        ).rows[0]
        XCTAssertThrowsError(try secret.decode("token") as Int) { e in XCTAssertFalse("\(e)".contains("S3cret"), "\(e)")
        }
        struct Wrong: Decodable { var name: Int }
        XCTAssertThrowsError(try secret.decodeJSON("doc") as Wrong) { e in
            XCTAssertFalse("\(e)".contains("S3cret"), "\(e)")
            XCTAssertTrue("\(e)".contains("(at name)"), "\(e)")
        }
    }

    func testJSON() throws {
        struct Meta: Codable, Equatable {
            var name: String
            var tags: [String]
        }
        let value = Meta(name: "ann", tags: ["x", "y"])
        let row = try conn.query("select $1::jsonb as j, '{\"a\":1}'::json as k", [try JSONParameter(value)]).rows[0]
        XCTAssertEqual(try row.decodeJSON("j") as Meta, value)
        let data: Data = try row.decode("k")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "{\"a\":1}")
        XCTAssertThrowsError(try row.decodeJSON("k") as Meta) { e in XCTAssertTrue("\(e)".contains("\"k\"")) }
    }

    func testArrayWithNullElementIsAnError() throws {
        let row = try conn.query("select array['a', null]::text[] as arr").rows[0]
        XCTAssertThrowsError(try row.decode("arr") as [String])
    }

    func testAffectedRowsAndTag() throws {
        try conn.query("create temp table t (x int)")
        let r = try conn.query("insert into t select generate_series(1, $1::int)", [7])
        XCTAssertEqual(r.affectedRows, 7)
        XCTAssertEqual(r.commandTag, "INSERT 0 7")
        XCTAssertEqual(try conn.query("update t set x = x + 1 where x > 5").affectedRows, 2)
    }
}
