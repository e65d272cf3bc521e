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
        for raw in [
            "postgresql://u@localhost/db?password=s3cret&applicationname=x", "password=s3cret&3 horse",
            "postgresql://u:s3cret@[::1/x", "host=h password='s3cret",
        ] {
            let c = ConnectionString(raw)
            XCTAssertFalse(c.description.contains("s3cret"), raw)
            XCTAssertThrowsError(try c.options()) { XCTAssertFalse("\($0)".contains("s3cret"), raw) }
        }
        XCTAssertEqual(
            ConnectionString("postgresql://u@h/db?password=s3cret").description, "host=h user=u dbname=db password=***")
    }

    func testEnvironmentSelection() {
        XCTAssertEqual(ConnectionString.fromEnvironment(["DATABASE_URL": "postgresql:///x"]).raw, "postgresql:///x")
        XCTAssertEqual(ConnectionString.fromEnvironment(["PGHOST": "h"]).raw, "")
        XCTAssertTrue(ConnectionString.environmentNamesDatabase(["PGDATABASE": "x"]))
        XCTAssertFalse(ConnectionString.environmentNamesDatabase(["PGUSER": "x", "HOME": "/"]))
        XCTAssertEqual(ConnectionString("").description, "(libpq environment)")
    }

    /// Malformed URLs and keyword strings whose password libpq would split into host, port or
    /// database name: no piece of the password reaches a description, an error or a message.
    static var hostileStrings: [String] {
        var list: [String] = []
        for sep in [
            "@", "/", "?", "#", ":", "@@", "/@", "@/", "?@", "/?", "&", "=", ",", "[", "]", "%", " ", "'", "\\",
        ] {
            let pw = "S3cr" + sep + "t3PWxyzzy"
            list += [
                "postgresql://postgres:\(pw)@127.0.0.1:1/postgres",
                "postgres://postgres:\(pw)@127.0.0.1:1/postgres?sslmode=disable",
                "postgresql://postgres:\(pw)@127.0.0.1:1",
                "postgresql://postgres:\(pw)@127.0.0.1:1/db?application_name=a@b",
                "postgresql://po@st:\(pw)@127.0.0.1:1/db", "host=127.0.0.1 port=1 user=u password=\(pw) dbname=x",
                "host=127.0.0.1 port=1 password='\(pw)' dbname=x", "host=127.0.0.1 port=1 password='\(pw)",
            ]
        }
        return list + [
            "postgresql://u:S3cr/t3PW?xyzzy@127.0.0.1:1/db", "postgresql://u:S3cr/t3PW?host=xyzzy@127.0.0.1:1/db",
            "postgresql://u:S3cr@t3PW@xyzzy@127.0.0.1:1/db", "postgresql://u:S3cr%ZZt3PWxyzzy@127.0.0.1:1/db",
        ]
    }

    static func leaks(_ text: String) -> Bool { ["S3cr", "t3PW", "xyzzy"].contains { text.contains($0) } }

    func testNoPieceOfAPasswordEverShows() {
        for raw in Self.hostileStrings {
            let c = ConnectionString(raw)
            XCTAssertFalse(Self.leaks(c.description), "\(raw) → \(c.description)")
            do { _ = try c.options() } catch { XCTAssertFalse(Self.leaks("\(error)"), "\(raw) → \(error)") }
            do {
                _ = try PostgresConnection(c)
                XCTFail("\(raw) connected")
            } catch {
                XCTAssertFalse(Self.leaks("\(error)"), "\(raw) → \(error)")
            }
        }
    }

    func testWellFormedURLsStillParse() throws {
        for raw in [
            "postgresql://u:S3cr%40t3PW%2Fxyzzy@127.0.0.1:1/db", "postgresql://u:pw@h/db?application_name=me@work",
            "postgresql://h:5432/db?user=me@work", "postgresql://u:p?w@h/db", "postgresql://[::1]:5432/db?user=a@b",
        ] {
            XCTAssertNoThrow(try ConnectionString(raw).options(), raw)
        }
        XCTAssertEqual(try ConnectionString("postgresql://u:S3cr%40t3PW@h/db").options()["password"], "S3cr@t3PW")
    }

    /// Output names a database by name and server only: no password, user or option, and a
    /// socket directory (a local path) is not named.
    func testLabelIsNoConnectionString() {
        let cases: [(String, String)] = [
            ("postgresql://alice:S3cret@db.example.com:6543/app?sslmode=require", "app on db.example.com:6543"),
            ("host=127.0.0.1 port=1 user=u password=pw dbname=x", "x on 127.0.0.1:1"),
            ("host=/var/run/postgresql dbname=app", "app on a local socket"),
            ("dbname=app", "app"),
            ("", "the database of the libpq environment"),
            ("host='unterminated password=x", "the given database"),
        ]
        for (raw, label) in cases {
            let c = ConnectionString(raw)
            XCTAssertEqual(c.label, label, raw)
            for secret in ["S3cret", "pw", "alice", "user=", "password", "sslmode", "/var/run"] {
                XCTAssertFalse(c.label.contains(secret), "\(raw): \(c.label)")
            }
        }
    }
}
