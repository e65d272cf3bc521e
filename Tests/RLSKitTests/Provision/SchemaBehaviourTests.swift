import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Our schema (sql/migrations) on the stand-in: sign-up, avatar cleanup through each backend,
/// user deletion, and the secrecy of the storage settings.
final class SchemaBehaviourTests: XCTestCase {
    var dbs: [String] = []
    override func tearDown() { for d in dbs { TestServer.drop(d) } }

    func provisioned(before: String? = nil) throws -> PostgresConnection {
        let db = try TestServer.makeDatabase(prefix: "schema")
        dbs.append(db.name)
        let conn = try PostgresConnection(db.connectionString)
        if let before {
            // Stand-in first (empty migration set), then the extra objects, then our schema.
            let o = Migrator.Options()
            _ = try Migrator(
                conn, source: .directory(Provisioned.repositoryRoot + "/Tests/Fixtures/empty-migrations"), options: o
            ).run()
            _ = try conn.runScript(before)
        }
        _ = try Migrator(conn, source: .builtIn, options: Migrator.Options()).run()
        return conn
    }

    /// Inserts a user the way the Auth server does (as supabase_auth_admin), so triggers fire.
    func signUp(_ c: PostgresConnection, _ id: UUID, meta: String) throws {
        try c.query("set local role supabase_auth_admin")
        try c.query(
            "insert into auth.users (id, email, raw_user_meta_data, created_at, updated_at, aud, role) values ($1, $2, $3::jsonb, now(), now(), 'authenticated', 'authenticated')",
            [id, "u\(id.uuidString.prefix(6))@example.com", meta])
        try c.query("reset role")
    }

    func actAs(_ c: PostgresConnection, _ id: UUID) throws {
        try c.query(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"sub":"\#(id.uuidString.lowercased())","role":"authenticated"}"#])
    }

    func testSignUpCreatesExactlyOneProfileFromMetadata() throws {
        let conn = try provisioned()
        let a = UUID()
        let b = UUID()
        try conn.rolledBack { c in
            let tablesBefore: Int = try c.query("select count(*)::int from public.posts").rows[0].decode(0)
            try signUp(c, a, meta: #"{"full_name":"Ann Lee","avatar_url":"x.png","nickname":"annie"}"#)
            let p = try c.query("select id, full_name, avatar_url, username from public.profiles").rows
            XCTAssertEqual(p.count, 1)
            XCTAssertEqual(try p[0].decode("id") as UUID, a)
            XCTAssertEqual(try p[0].decode("full_name") as String, "Ann Lee")
            XCTAssertEqual(try p[0].decode("username") as String, "annie")
            XCTAssertEqual(try c.query("select count(*)::int from public.posts").rows[0].decode(0) as Int, tablesBefore)
            // A taken or too short name never blocks a sign-up.
            try signUp(c, b, meta: #"{"username":"annie"}"#)
            XCTAssertNil(
                try c.query("select username from public.profiles where id = $1", [b]).rows[0].decode("username")
                    as String?)
        }
    }

    func testReplacingAvatarQueuesOnlyTheOldObjectAndDeletingTheUserQueuesItToo() throws {
        let conn = try provisioned()
        let a = UUID()
        let old = "\(a.uuidString.lowercased())/old.png"
        let new = "\(a.uuidString.lowercased())/new.png"
        try conn.rolledBack { c in
            try signUp(c, a, meta: "{}")
            try c.query("update public.profiles set avatar_url = $1 where id = $2", [old, a])
            try c.query("delete from private.storage_deletion_outbox")
            try c.savepoint { c in
                try actAs(c, a)
                XCTAssertEqual(
                    try c.query("update public.profiles set avatar_url = $1 where id = $2", [new, a]).affectedRows, 1)
                try c.query("reset role")  // SET LOCAL survives RELEASE SAVEPOINT
            }
            var queued: [String] = try c.query(
                "select bucket_id || ':' || object_name from private.storage_deletion_outbox"
            ).rows.map { try $0.decode(0) }
            XCTAssertEqual(queued, ["avatars:" + old])
            try c.query("delete from private.storage_deletion_outbox")
            try c.query("set local role supabase_auth_admin")
            try c.query("delete from auth.users where id = $1", [a])
            try c.query("reset role")
            XCTAssertEqual(
                try c.query("select count(*)::int from public.profiles where id = $1", [a]).rows[0].decode(0) as Int, 0)
            queued = try c.query("select bucket_id || ':' || object_name from private.storage_deletion_outbox").rows.map
            { try $0.decode(0) }
            XCTAssertEqual(queued, ["avatars:" + new])
        }
    }

    static let httpStandIn = """
        create type extensions.http_header as (field varchar, value varchar);
        create type extensions.http_request as (method varchar, uri varchar, headers extensions.http_header[], content_type varchar, content varchar);
        create type extensions.http_response as (status integer, content_type varchar, headers extensions.http_header[], content varchar);
        create table public.http_calls (method text, uri text, headers text, timeout text);
        create function extensions.http(r extensions.http_request) returns extensions.http_response language plpgsql as $$
        begin
          insert into public.http_calls values (r.method, r.uri, r.headers::text, current_setting('http.timeout_msec', true));
          return row(200, 'application/json', null, '{}')::extensions.http_response;
        end $$;
        """

    static let netStandIn = """
        create schema net;
        create table public.net_calls (url text, headers jsonb, timeout int);
        create function net.http_delete(url text, params jsonb default '{}', headers jsonb default '{}', timeout_milliseconds int default 5000)
        returns bigint language plpgsql as $$
        begin insert into public.net_calls values (url, headers, timeout_milliseconds); return 1; end $$;
        """

    func testHTTPBackendCallsTheStorageAPIWithTheKey() throws {
        let conn = try provisioned(before: Self.httpStandIn)
        let key = "test-service-key-\(UUID().uuidString)"
        XCTAssertEqual(try StorageSettings.write(conn, url: "https://abc.supabase.co/", serviceKey: key), .table)
        let a = UUID()
        let old = "\(a.uuidString.lowercased())/my photo.png"
        try conn.rolledBack { c in
            try signUp(c, a, meta: "{}")
            try c.query("update public.profiles set avatar_url = $1 where id = $2", [old, a])
            try c.query("delete from public.http_calls")
            try c.query("update public.profiles set avatar_url = null where id = $1", [a])
            let calls = try c.query("select method, uri, headers from public.http_calls").rows
            XCTAssertEqual(calls.count, 1)
            XCTAssertEqual(try calls[0].decode("method") as String, "DELETE")
            XCTAssertEqual(
                try calls[0].decode("uri") as String,
                "https://abc.supabase.co/storage/v1/object/avatars/\(a.uuidString.lowercased())/my%20photo.png")
            XCTAssertTrue((try calls[0].decode("headers") as String).contains("Bearer \(key)"))
        }
        try assertKeyIsSecret(conn, key)
    }

    /// The http extension has no timeout by default; the cleanup sets one (keeping the caller's).
    func testHTTPBackendNeverWaitsForever() throws {
        let conn = try provisioned(before: Self.httpStandIn)
        try StorageSettings.write(conn, url: "https://abc.supabase.co", serviceKey: "k-\(UUID())")
        let a = UUID()
        let me = a.uuidString.lowercased()
        for (mine, expected) in [(nil, "5000"), ("0", "5000"), ("1500", "1500")] {
            try conn.rolledBack { c in
                try signUp(c, a, meta: "{}")
                try c.query("update public.profiles set avatar_url = $1 where id = $2", ["\(me)/a.png", a])
                if let mine { try c.query("select set_config('http.timeout_msec', $1, true)", [mine]) }
                try c.query("update public.profiles set avatar_url = null where id = $1", [a])
                XCTAssertEqual(
                    try c.query("select timeout from public.http_calls").rows.map { try $0.decode(0) as String? },
                    [expected])
            }
        }
    }

    /// A stored URL that would swallow the object path (written out of band): nothing is sent,
    /// the deletion waits in the outbox with the reason.
    func testUnusableStoredURLQueuesInsteadOfSending() throws {
        let conn = try provisioned(before: Self.httpStandIn)
        try conn.query(
            "insert into private.storage_api_settings (api_url, service_role_key) values ('https://abc.supabase.co/?x=', 'k')"
        )
        let a = UUID()
        let me = a.uuidString.lowercased()
        try conn.rolledBack { c in
            try signUp(c, a, meta: "{}")
            try c.query("update public.profiles set avatar_url = $1 where id = $2", ["\(me)/a.png", a])
            try c.query("update public.profiles set avatar_url = null where id = $1", [a])
            XCTAssertEqual(try c.query("select count(*)::int from public.http_calls").rows[0].decode(0) as Int, 0)
            let queued = try c.query("select object_name, last_error from private.storage_deletion_outbox").rows
            XCTAssertEqual(try queued.map { try $0.decode("object_name") as String }, ["\(me)/a.png"])
            XCTAssertTrue((try queued.first?.decode("last_error") as String?)?.contains("no query, fragment") == true)
        }
    }

    func testPgNetBackendQueuesTheDelete() throws {
        let conn = try provisioned(before: Self.netStandIn)
        let key = "net-key-\(UUID().uuidString)"
        try StorageSettings.write(conn, url: "https://abc.supabase.co", serviceKey: key)
        let a = UUID()
        try conn.rolledBack { c in
            try signUp(c, a, meta: #"{"avatar_url":"\#(a.uuidString.lowercased())/a.png"}"#)
            try c.query("delete from public.net_calls")
            try c.query(
                "update public.profiles set avatar_url = $1 where id = $2", ["\(a.uuidString.lowercased())/b.png", a])
            let calls = try c.query("select url, headers->>'Authorization' as auth from public.net_calls").rows
            XCTAssertEqual(calls.count, 1)
            XCTAssertEqual(
                try calls[0].decode("url") as String,
                "https://abc.supabase.co/storage/v1/object/avatars/\(a.uuidString.lowercased())/a.png")
            XCTAssertEqual(try calls[0].decode("auth") as String, "Bearer \(key)")
        }
        try assertKeyIsSecret(conn, key)
    }

    /// A user who sets their avatar_url to a traversal (or any unsafe name) and then changes it
    /// gets nothing queued and nothing sent, by every backend; a safe name still goes through.
    func testTriggerNeverQueuesOrSendsUnsafeAvatarNames() throws {
        for (backend, standIn, calls) in [
            ("outbox", nil, nil), ("http", Self.httpStandIn, "public.http_calls"),
            ("pg_net", Self.netStandIn, "public.net_calls"),
        ] {
            let conn = try provisioned(before: standIn)
            if standIn != nil {
                try StorageSettings.write(conn, url: "https://abc.supabase.co", serviceKey: "k-\(UUID())")
            }
            let a = UUID()
            let me = a.uuidString.lowercased()
            func sent(_ c: PostgresConnection) throws -> [String] {
                var out: [String] = try c.query("select object_name from private.storage_deletion_outbox").rows.map {
                    try $0.decode(0)
                }
                if let calls {
                    out += try c.query("select \(calls.hasPrefix("public.http") ? "uri" : "url") from \(calls)").rows
                        .map { try $0.decode(0) }
                }
                return out
            }
            try conn.rolledBack { c in
                try signUp(c, a, meta: "{}")
                for name in StorageNames.refused(owner: me, victim: UUID().uuidString.lowercased()) {
                    for how in ["replace", "delete user"] {
                        do {
                            try c.savepoint { c in
                                // As if stored before avatar_url was checked (private.check_avatar_url refuses it now).
                                try c.query("set local session_replication_role = replica")
                                try c.query("update public.profiles set avatar_url = $1 where id = $2", [name, a])
                                try c.query("set local session_replication_role = origin")
                                try c.query("delete from private.storage_deletion_outbox")
                                if how == "replace" {
                                    try actAs(c, a)
                                    XCTAssertEqual(
                                        try c.query(
                                            "update public.profiles set avatar_url = $1 where id = $2",
                                            ["\(me)/new.png", a]
                                        ).affectedRows, 1)
                                    try c.query("reset role")
                                } else {
                                    try c.query("set local role supabase_auth_admin")
                                    try c.query("delete from auth.users where id = $1", [a])
                                    try c.query("reset role")
                                }
                                XCTAssertEqual(try sent(c), [], "\(backend), \(how): \(name.debugDescription)")
                                throw Rollback()
                            }
                        } catch is Rollback {}
                    }
                }
                try c.query("update public.profiles set avatar_url = $1 where id = $2", ["\(me)/old photo.png", a])
                try c.query("update public.profiles set avatar_url = null where id = $1", [a])
                XCTAssertEqual(try sent(c).count, 1, backend)
            }
        }
    }

    struct Rollback: Error {}

    /// avatar_url holds nothing, an http(s) URL or a safe object name: a user writing anything
    /// else gets 23514; at sign-up the bad value is dropped, the profile still created.
    func testAvatarURLMayOnlyHoldSafeNamesOrHTTPURLs() throws {
        let conn = try provisioned()
        let a = UUID()
        let me = a.uuidString.lowercased()
        let refused =
            StorageNames.refused(owner: me, victim: UUID().uuidString.lowercased())
            + [
                "javascript:alert(1)", "data:image/png;base64,AAAA", "file:///etc/passwd", "https://", "https:///x",
                "https://a b/c.png", "https://x/\n.png",
            ]
        let accepted =
            StorageNames.accepted(owner: me) + [
                "https://lh3.googleusercontent.com/a/x=s96-c", "HTTP://example.com/a.png", "x.png",
            ]
        try conn.rolledBack { c in
            try signUp(c, a, meta: "{}")
            try actAs(c, a)
            for name in refused {
                XCTAssertThrowsError(
                    try c.savepoint {
                        try $0.query("update public.profiles set avatar_url = $1 where id = $2", [name, a])
                    }, name.debugDescription
                ) {
                    XCTAssertEqual(($0 as? PostgresError)?.sqlState, "23514", name.debugDescription)
                }
            }
            for name in accepted {
                XCTAssertEqual(
                    try c.query("update public.profiles set avatar_url = $1 where id = $2", [name, a]).affectedRows, 1,
                    name.debugDescription)
            }
            try c.query("reset role")
            // Sign-up never fails over it: the profile is created without the avatar.
            for (i, name) in refused.prefix(5).enumerated() {
                let b = UUID()
                let meta = String(
                    decoding: try JSONSerialization.data(withJSONObject: ["avatar_url": name, "full_name": "n\(i)"]),
                    as: UTF8.self)
                try signUp(c, b, meta: meta)
                let row = try c.query("select full_name, avatar_url from public.profiles where id = $1", [b]).rows
                XCTAssertEqual(row.count, 1, name.debugDescription)
                XCTAssertEqual(try row.first?.decode("full_name") as String?, "n\(i)")
                XCTAssertNil(try row.first?.decode("avatar_url") as String?, name.debugDescription)
            }
            // A value stored before the check does not block other updates, nor replacing it.
            try c.query("set local session_replication_role = replica")
            try c.query("update public.profiles set avatar_url = $1 where id = $2", ["\(me)/../x", a])
            try c.query("set local session_replication_role = origin")
            try c.query("delete from private.storage_deletion_outbox")
            try actAs(c, a)
            XCTAssertEqual(try c.query("update public.profiles set full_name = 'z' where id = $1", [a]).affectedRows, 1)
            XCTAssertEqual(
                try c.query("update public.profiles set avatar_url = $1 where id = $2", ["\(me)/new.png", a])
                    .affectedRows, 1)
            try c.query("reset role")
            XCTAssertEqual(
                try c.query("select count(*)::int from private.storage_deletion_outbox").rows[0].decode(0) as Int, 0)
        }
    }

    func assertKeyIsSecret(
        _ conn: PostgresConnection, _ key: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let places = """
            select (select count(*) from pg_proc where prosrc like '%' || $1 || '%')
                 + (select count(*) from pg_views where definition like '%' || $1 || '%')
                 + (select count(*) from pg_attrdef where pg_get_expr(adbin, adrelid) like '%' || $1 || '%')
                 + (select count(*) from pg_description where description like '%' || $1 || '%') as n
            """
        XCTAssertEqual(try conn.query(places, [key]).rows[0].decode("n") as Int, 0, file: file, line: line)
    }

    func testAPIRolesCannotReachPrivateFunctionsOrSettings() throws {
        let conn = try provisioned()
        try StorageSettings.write(conn, url: "https://abc.supabase.co", serviceKey: "k-\(UUID())")
        let functions: [String] = try conn.query(
            "select p.oid::regprocedure::text from pg_proc p where p.pronamespace = 'private'::regnamespace"
        ).rows.map { try $0.decode(0) }
        XCTAssertGreaterThan(functions.count, 3)
        for role in ["anon", "authenticated", "service_role"] {
            for f in functions {
                XCTAssertFalse(
                    try conn.query("select has_function_privilege($1, $2, 'execute') as p", [role, f]).rows[0].decode(
                        "p") as Bool, "\(role) can execute \(f)")
            }
            for t in ["private.storage_api_settings", "private.storage_deletion_outbox"] {
                XCTAssertFalse(
                    try conn.query("select has_table_privilege($1, $2, 'select') as p", [role, t]).rows[0].decode("p")
                        as Bool, "\(role) reads \(t)")
            }
            try conn.rolledBack { c in
                try c.query("select set_config('role', $1, true)", [role])
                XCTAssertThrowsError(try c.query("select * from private.storage_api_settings")) {
                    XCTAssertEqual(($0 as? PostgresError)?.sqlState, "42501")
                }
            }
        }
    }
}
