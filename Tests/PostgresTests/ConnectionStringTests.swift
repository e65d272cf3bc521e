import Postgres
import XCTest

final class ConnectionStringTests: XCTestCase {
    func testURIDescriptionRedactsPassword() throws {
        let c = ConnectionString("postgresql://alice:s3cr%40t@db.example.com:6543/app?sslmode=require")
        XCTAssertEqual(c.password, "s3cr@t")
        XCTAssertFalse(c.description.contains("s3cr"))
        XCTAssertTrue(c.description.contains("password=***"))
        XCTAssertTrue(c.description.contains("host=db.example.com"))
        XCTAssertTrue(c.description.contains("port=6543"))
    }

    func testKeywordDescriptionRedactsPassword() {
        let c = ConnectionString("host=localhost dbname=app user=bob password='hunter 2'")
        XCTAssertEqual(c.password, "hunter 2")
        XCTAssertFalse(c.description.contains("hunter"))
        XCTAssertTrue(c.description.contains("dbname=app"))
    }

    func testUnparseableStringIsDescribedWithoutItsPassword() {
        let c = ConnectionString("postgresql://alice:topsecret@[::1/x?bogus_option=1")
        XCTAssertFalse(c.description.contains("topsecret"))
        XCTAssertThrowsError(try c.options()) { e in
            XCTAssertFalse("\(e)".contains("topsecret"))
        }
    }

    func testEnvironmentSelection() {
        XCTAssertEqual(ConnectionString.fromEnvironment(["DATABASE_URL": "postgresql:///x"]).raw, "postgresql:///x")
        XCTAssertEqual(ConnectionString.fromEnvironment(["PGHOST": "h"]).raw, "")
        XCTAssertTrue(ConnectionString.environmentNamesDatabase(["PGDATABASE": "x"]))
        XCTAssertFalse(ConnectionString.environmentNamesDatabase(["PGUSER": "x", "HOME": "/"]))
        XCTAssertEqual(ConnectionString("").description, "(libpq environment)")
    }
}
