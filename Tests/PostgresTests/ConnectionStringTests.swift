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

    func testPasswordsInUnparseableStringsOrQueriesNeverShow() {
        for raw in ["postgresql://u@localhost/db?password=s3cret&applicationname=x", "password=s3cret&3 horse",
                    "postgresql://u:s3cret@[::1/x", "host=h password='s3cret"] {
            let c = ConnectionString(raw)
            XCTAssertFalse(c.description.contains("s3cret"), raw)
            XCTAssertThrowsError(try c.options()) { XCTAssertFalse("\($0)".contains("s3cret"), raw) }
        }
        XCTAssertEqual(ConnectionString("postgresql://u@h/db?password=s3cret").description, "host=h user=u dbname=db password=***")
    }

    func testEnvironmentSelection() {
        XCTAssertEqual(ConnectionString.fromEnvironment(["DATABASE_URL": "postgresql:///x"]).raw, "postgresql:///x")
        XCTAssertEqual(ConnectionString.fromEnvironment(["PGHOST": "h"]).raw, "")
        XCTAssertTrue(ConnectionString.environmentNamesDatabase(["PGDATABASE": "x"]))
        XCTAssertFalse(ConnectionString.environmentNamesDatabase(["PGUSER": "x", "HOME": "/"]))
        XCTAssertEqual(ConnectionString("").description, "(libpq environment)")
    }
}
