import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// The stand-in against the reference facts of Supabase's surface.
final class StandInTests: XCTestCase {
    static let db = try! Provisioned.database(prefix: "standin")
    var conn: PostgresConnection!

    override class func tearDown() { TestServer.drop(db.name) }
    override func setUpWithError() throws { conn = try PostgresConnection(Self.db.connectionString) }

    func testRoleAttributes() throws {
        let rows = try conn.query(
            """
            select rolname, rolcanlogin, rolinherit, rolbypassrls,
                   coalesce((select string_agg(c, ',') from unnest(rolconfig) c), '') as config
            from pg_roles where rolname in ('anon','authenticated','service_role','authenticator') order by rolname
            """
        ).rows
        let byName = Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("rolname") as String, $0) })
        func attr(_ r: String, _ c: String) throws -> Bool { try byName[r]!.decode(c) }
        XCTAssertFalse(try attr("anon", "rolcanlogin"))
        XCTAssertTrue(try attr("anon", "rolinherit"))
        XCTAssertTrue(try attr("service_role", "rolbypassrls"))
        XCTAssertFalse(try attr("authenticated", "rolbypassrls"))
        XCTAssertTrue(try attr("authenticator", "rolcanlogin"))
        XCTAssertFalse(try attr("authenticator", "rolinherit"))
        XCTAssertTrue((try byName["anon"]!.decode("config") as String).contains("statement_timeout=3s"))
        XCTAssertTrue((try byName["authenticated"]!.decode("config") as String).contains("statement_timeout=8s"))
        let members: [String] = try conn.query(
            """
            select r.rolname from pg_auth_members m join pg_roles r on r.oid = m.roleid
            join pg_roles u on u.oid = m.member where u.rolname = 'authenticator' order by 1
            """
        ).rows.map { try $0.decode(0) }
        XCTAssertEqual(members, ["anon", "authenticated", "service_role"])
    }

    func testAuthUsersColumnsInOrder() throws {
        let cols: [String] = try conn.query(
            """
            select attname from pg_attribute where attrelid = 'auth.users'::regclass and attnum > 0 and not attisdropped order by attnum
            """
        ).rows.map { try $0.decode(0) }
        XCTAssertEqual(
            cols,
            [
                "instance_id", "id", "aud", "role", "email", "encrypted_password", "email_confirmed_at", "invited_at",
                "confirmation_token", "confirmation_sent_at", "recovery_token", "recovery_sent_at",
                "email_change_token_new", "email_change",
                "email_change_sent_at", "last_sign_in_at", "raw_app_meta_data", "raw_user_meta_data", "is_super_admin",
                "created_at",
                "updated_at", "phone", "phone_confirmed_at", "phone_change", "phone_change_token",
                "phone_change_sent_at", "confirmed_at",
                "email_change_token_current", "email_change_confirm_status", "banned_until", "reauthentication_token",
                "reauthentication_sent_at", "is_sso_user", "deleted_at", "is_anonymous",
            ])
        XCTAssertTrue(
            try conn.query("select relrowsecurity from pg_class where oid = 'auth.users'::regclass").rows[0].decode(0)
                as Bool)
        XCTAssertFalse(
            try conn.query("select has_table_privilege('anon', 'auth.users', 'select') as p").rows[0].decode("p")
                as Bool)
        XCTAssertFalse(
            try conn.query("select has_table_privilege('authenticated', 'auth.users', 'select') as p").rows[0].decode(
                "p") as Bool)
    }

    func testAuthFunctionsReadLegacyClaimFirst() throws {
        let sub = UUID()
        let legacy = UUID()
        try conn.rolledBack { c in
            XCTAssertNil(
                try c.query("select auth.uid() as u, auth.role() as r, auth.email() as e, auth.jwt() as j").rows[0]
                    .decode("u") as UUID?)
            try c.query(
                "select set_config('request.jwt.claims', $1, true)",
                [#"{"sub":"\#(sub.uuidString.lowercased())","role":"authenticated","email":"a@x.io"}"#])
            let r = try c.query(
                "select auth.uid() as u, auth.role() as r, auth.email() as e, auth.jwt()->>'email' as j"
            ).rows[0]
            XCTAssertEqual(try r.decode("u") as UUID, sub)
            XCTAssertEqual(try r.decode("r") as String, "authenticated")
            XCTAssertEqual(try r.decode("e") as String, "a@x.io")
            XCTAssertEqual(try r.decode("j") as String, "a@x.io")
            try c.query("select set_config('request.jwt.claim.sub', $1, true)", [legacy.uuidString])
            XCTAssertEqual(try c.query("select auth.uid() as u").rows[0].decode("u") as UUID, legacy)
            try c.query("select set_config('request.jwt.claim.sub', 'not-a-uuid', true)")
            XCTAssertThrowsError(try c.query("select auth.uid()")) {
                XCTAssertEqual(($0 as? PostgresError)?.sqlState, "22P02")
            }
        }
    }

    func testStoragePathHelpers() throws {
        let cases: [(String, String?, String?, String?)] = [
            ("a/b/c.png", "{a,b}", "c.png", "png"),
            ("c.png", "{}", "c.png", "png"),
            ("", nil, nil, nil),
        ]
        for (name, folders, file, ext) in cases {
            let r = try conn.query(
                "select storage.foldername($1)::text as f, storage.filename($1) as n, storage.extension($1) as e",
                [name]
            ).rows[0]
            XCTAssertEqual(try r.decode("f") as String?, folders, name)
            XCTAssertEqual(try r.decode("n") as String?, file, name)
            XCTAssertEqual(try r.decode("e") as String?, ext, name)
        }
        XCTAssertEqual(
            try conn.query("select storage.extension('dir/README') as e").rows[0].decode("e") as String?, "README")
    }

    func testStorageTablesAndDeleteGuard() throws {
        let cols: [String] = try conn.query(
            """
            select attname from pg_attribute where attrelid = 'storage.objects'::regclass and attnum > 0 and not attisdropped order by attnum
            """
        ).rows.map { try $0.decode(0) }
        for c in [
            "id", "bucket_id", "name", "owner", "owner_id", "created_at", "updated_at", "last_accessed_at", "metadata",
            "path_tokens", "version", "user_metadata",
        ] {
            XCTAssertTrue(cols.contains(c), c)
        }
        try conn.rolledBack { c in
            try c.query("insert into storage.objects (bucket_id, name) values ('avatars', 'x/y.png')")
            XCTAssertEqual(
                try c.query("select path_tokens::text as p from storage.objects where name = 'x/y.png'").rows[0].decode(
                    "p") as String, "{x,y.png}")
            XCTAssertThrowsError(
                try c.savepoint { c in try c.query("delete from storage.objects where name = 'x/y.png'") }
            ) { e in
                let pe = e as! PostgresError
                XCTAssertEqual(pe.sqlState, "42501")
                XCTAssertTrue(pe.message.contains("Direct deletion from storage tables is not allowed"))
            }
            try c.query("select set_config('storage.allow_delete_query', 'true', true)")
            XCTAssertEqual(try c.query("delete from storage.objects where name = 'x/y.png'").affectedRows, 1)
        }
        for role in ["anon", "authenticated", "service_role"] {
            XCTAssertTrue(
                try conn.query(
                    "select has_table_privilege($1, 'storage.objects', 'insert,select,update,delete') as p", [role]
                ).rows[0].decode("p") as Bool)
        }
    }

    /// Applying the stand-in again changes nothing: same catalog snapshot.
    func testStandInIsIdempotent() throws {
        let snapshot = """
            select md5(string_agg(x, '|' order by x)) as h from (
              select n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || coalesce(c.relacl::text, '') from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname in ('auth','storage','extensions')
              union all select p.oid::regprocedure::text || md5(p.prosrc) from pg_proc p where p.pronamespace in ('auth'::regnamespace, 'storage'::regnamespace)
              union all select rolname || rolinherit::text || rolbypassrls::text || coalesce(rolconfig::text, '') from pg_roles where rolname not like 'pg\\_%'
            ) s(x)
            """
        let before: String = try conn.query(snapshot).rows[0].decode("h")
        for file in BuiltInSQL.files(in: "compat") { _ = try conn.runScript(file.contents) }
        XCTAssertEqual(try conn.query(snapshot).rows[0].decode("h") as String, before)
    }

    /// Where the real schemas exist, nothing of ours goes into them.
    func testRealSupabaseSchemasAreLeftUntouched() throws {
        let db = try TestServer.makeDatabase(prefix: "real")
        defer { TestServer.drop(db.name) }
        let c = try PostgresConnection(db.connectionString)
        _ = try c.runScript(
            """
            create schema auth; create table auth.users (id uuid primary key, email text);
            create schema storage; create table storage.objects (id uuid primary key, name text);
            comment on schema auth is 'Supabase auth';
            """)
        let o = Migrator.Options()
        var lines: [String] = []
        let result = try Migrator(
            c, source: .directory(Provisioned.repositoryRoot + "/Tests/Fixtures/empty-migrations"), options: o
        ) { lines.append($0) }.run()
        XCTAssertEqual(result.standIn?.installed, [])
        XCTAssertTrue(result.standIn?.detection.isSupabase ?? false)
        XCTAssertTrue(lines.contains { $0.contains("Supabase schemas found") }, "\(lines)")
        let cols: Int = try c.query(
            "select count(*)::int as n from pg_attribute where attrelid = 'auth.users'::regclass and attnum > 0"
        ).rows[0].decode("n")
        XCTAssertEqual(cols, 2)
        XCTAssertNil(try c.query("select to_regprocedure('auth.uid()')::text as f").rows[0].decode("f") as String?)
        XCTAssertEqual(
            try c.query("select obj_description('auth'::regnamespace, 'pg_namespace') as d").rows[0].decode("d")
                as String, "Supabase auth")
    }
}
