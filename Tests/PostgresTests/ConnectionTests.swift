import Foundation
import Postgres
import TestSupport
import XCTest

final class ConnectionTests: XCTestCase {
    func testConnectsWithKeywordString() throws {
        let conn = try TestServer.connect()
        let r = try conn.query("select 1 as one")
        XCTAssertEqual(try r.rows[0].decode("one") as Int, 1)
        XCTAssertGreaterThanOrEqual(conn.serverVersion, 140000)
    }

    func testConnectsWithURI() throws {
        let opts = try TestServer.connectionString.options()
        guard let host = opts["host"], host.hasPrefix("/") else {
            throw XCTSkip("URI form tested against the socket cluster only")
        }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "/&=")
        let uri =
            "postgresql:///\(opts["dbname"] ?? "postgres")?host=\(host.addingPercentEncoding(withAllowedCharacters: allowed)!)&user=\(opts["user"] ?? "postgres")"
        let conn = try PostgresConnection(ConnectionString(uri))
        XCTAssertEqual(
            try conn.query("select current_user::text as u").rows[0].decode("u") as String, opts["user"] ?? "postgres")
    }

    func testConnectsFromLibpqEnvironment() throws {
        // libpq reads PG* variables itself; they are removed again afterwards.
        let opts = try TestServer.connectionString.options()
        guard let host = opts["host"] else { throw XCTSkip("needs a host") }
        setenv("PGHOST", host, 1)
        setenv("PGUSER", opts["user"] ?? "postgres", 1)
        setenv("PGDATABASE", opts["dbname"] ?? "postgres", 1)
        defer {
            unsetenv("PGHOST")
            unsetenv("PGUSER")
            unsetenv("PGDATABASE")
        }
        let conn = try PostgresConnection(ConnectionString(""))
        XCTAssertEqual(
            try conn.query("select current_database()::text as d").rows[0].decode("d") as String,
            opts["dbname"] ?? "postgres")
    }

    func testWrongPasswordNeverAppearsInError() throws {
        let secret = "Pa55-very-secret-\(UInt32.random(in: 0...999_999))"
        let uri = "postgresql://nobody:\(secret)@127.0.0.1:1/nowhere?connect_timeout=2"
        XCTAssertThrowsError(try PostgresConnection(ConnectionString(uri))) { error in
            let e = error as! PostgresError
            XCTAssertEqual(e.kind, .connection)
            XCTAssertTrue(e.isConnectionFailure)
            XCTAssertFalse("\(e)".contains(secret))
            XCTAssertFalse(e.message.contains(secret))
            XCTAssertFalse("\(e)".contains("\n"))
        }
        XCTAssertFalse(ConnectionString(uri).description.contains(secret))
    }

    func testEscaping() throws {
        let conn = try TestServer.connect()
        XCTAssertEqual(try conn.escapeIdentifier("we\"ird; drop"), "\"we\"\"ird; drop\"")
        let lit = try conn.escapeLiteral("it's \\ here")
        let back = try conn.query("select \(lit)::text as v").rows[0].decode("v") as String
        XCTAssertEqual(back, "it's \\ here")
    }

    func testNoticesAreCaptured() throws {
        let conn = try TestServer.connect()
        let r = try conn.runScript("do $$ begin raise notice 'hello %', 42; raise warning 'careful'; end $$;")
        XCTAssertEqual(r.notices.map(\.message), ["hello 42", "careful"])
        XCTAssertEqual(r.notices.map(\.severity), ["NOTICE", "WARNING"])
    }
}

final class ConnectionCloseTests: XCTestCase {
    func testCloseEndsTheSessionAndLaterUseIsAConnectionError() throws {
        let conn = try TestServer.connect()
        let pid: Int = try conn.query("select pg_backend_pid() as p").rows[0].decode("p")
        conn.close()
        XCTAssertTrue(conn.isClosed)
        XCTAssertThrowsError(try conn.query("select 1")) { e in
            XCTAssertEqual((e as? PostgresError)?.kind, .connection, "\(e)")
        }
        conn.close()
        // The server saw the session end (it may take a moment to leave pg_stat_activity).
        let admin = try TestServer.connect()
        var gone = false
        for _ in 0..<100 where !gone {
            gone =
                try admin.query("select count(*)::int as n from pg_stat_activity where pid = $1", [pid]).rows[0].decode(
                    "n") as Int == 0
            if !gone { usleep(10_000) }
        }
        XCTAssertTrue(gone, "backend \(pid) still connected after close()")
    }
}
