import Foundation
import Postgres
import XCTest

@testable import RLSKit

/// The stand-in extensions on a throwaway server set up as `rlskit check` sets it up.
final class StandInExtensionTests: XCTestCase {
    nonisolated(unsafe) static var cluster: LocalCluster?

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
    }

    /// A fresh database on the shared platform-like server, with the stand-in installed.
    func database() throws -> PostgresConnection {
        if Self.cluster == nil { Self.cluster = try LocalCluster(options: PlatformExtensions.clusterOptions) }
        let admin = try PostgresConnection(Self.cluster!.connectionString)
        let name = "x\(UUID().uuidString.prefix(8).lowercased())"
        try admin.query("create database \(try admin.escapeIdentifier(name))")
        var opts = try Self.cluster!.connectionString.options()
        opts["dbname"] = name
        let conn = try PostgresConnection(ConnectionString(opts.map { "\($0.key)=\($0.value)" }.joined(separator: " ")))
        _ = try StandIn.install(conn)
        return conn
    }

    func value<T: PostgresDecodable>(_ conn: PostgresConnection, _ sql: String, _ params: [any PostgresEncodable] = [])
        throws -> T
    {
        try conn.query(sql, params).rows[0].decode(0)
    }

    /// pg_cron and pg_stat_statements are preloaded only for migrations that name them.
    func testPreloadsWhatMigrationsName() {
        let cron = SQLFile(
            path: "m/1_jobs.sql", contents: "create extension if not exists pg_cron with schema pg_catalog;")
        XCTAssertEqual(PlatformExtensions.clusterOptions(for: [cron]).preloadLibraries, ["pg_cron"])
        XCTAssertEqual(PlatformExtensions.clusterOptions(for: BuiltInSQL.files(in: "migrations")).preloadLibraries, [])
        XCTAssertEqual(
            PlatformExtensions.clusterOptions(for: []).extensionFiles.count, PlatformExtensions.standInNames.count * 2)
    }

    func testEveryStandInCreatesAndDrops() throws {
        let conn = try database()
        for name in PlatformExtensions.standInNames {
            try conn.query("create extension if not exists \(try conn.escapeIdentifier(name)) cascade")
            try conn.query("create extension if not exists \(try conn.escapeIdentifier(name)) cascade")
            let comment: String = try value(
                conn, "select obj_description(oid, 'pg_extension') from pg_extension where extname = $1", [name])
            XCTAssertTrue(comment.hasPrefix("rlskit stand-in:"), name)
        }
        XCTAssertEqual(try PlatformExtensions.standInsInstalled(conn), PlatformExtensions.standInNames)
        for name in PlatformExtensions.standInNames.reversed() {
            try conn.query("drop extension \(try conn.escapeIdentifier(name)) cascade")
        }
        XCTAssertEqual(try PlatformExtensions.standInsInstalled(conn), [])
    }

    func testVectorDistancesAndDimensions() throws {
        let conn = try database()
        try conn.query("create extension vector with schema extensions")
        let a = [0.3, -1.2, 2.0]
        let b = [1.5, 0.25, -0.5]
        func text(_ v: [Double]) -> String { "[" + v.map { String($0) }.joined(separator: ",") + "]" }
        let dot = zip(a, b).map { $0 * $1 }.reduce(0, +)
        let norm = { (v: [Double]) in sqrt(v.map { $0 * $0 }.reduce(0, +)) }
        let l2 = sqrt(zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +))
        let got: [Double] = try ["<->", "<#>", "<=>"].map { op in
            try value(conn, "select $1::extensions.vector \(op) $2::extensions.vector", [text(a), text(b)])
        }
        XCTAssertEqual(got[0], l2, accuracy: 1e-9)
        XCTAssertEqual(got[1], -dot, accuracy: 1e-9)
        XCTAssertEqual(got[2], 1 - dot / (norm(a) * norm(b)), accuracy: 1e-9)
        XCTAssertEqual(try value(conn, "select extensions.vector_dims($1::extensions.vector)", [text(a)]) as Int, 3)
        try conn.query("create table t (e extensions.vector(3))")
        XCTAssertEqual(
            try value(
                conn,
                "select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 't'::regclass and attname = 'e'"
            ) as String, "vector(3)")
        XCTAssertThrowsError(try conn.query("insert into t values ('[1,2]')")) { e in
            XCTAssertEqual((e as? PostgresError)?.message, "expected 3 dimensions, not 2")
        }
        try conn.query("insert into t values (array[1,2,3]::real[]), ('[3,4,5]')")
        XCTAssertEqual(try value(conn, "select avg(e)::text from t") as String, "[2,3,4]")
        XCTAssertThrowsError(try conn.query("select '[1,2]'::extensions.vector <-> '[1,2,3]'::extensions.vector"))
    }

    /// Which index forms projects use apply on the stand-in (options only through the migrator).
    func testVectorIndexForms() throws {
        let conn = try database()
        _ = try conn.runScript("create extension vector with schema extensions; set search_path = public, extensions")
        try conn.query("create table docs (e vector(3))")
        for form in [
            "using hnsw (e vector_cosine_ops)", "using hnsw (e vector_l2_ops)", "using hnsw (e vector_ip_ops)",
            "using hnsw (e)", "using ivfflat (e vector_cosine_ops)", "using ivfflat (e vector_l2_ops)",
            "using ivfflat (e vector_ip_ops)",
        ] {
            XCTAssertNoThrow(try conn.query("create index on docs \(form)"), form)
        }
        try conn.query("insert into docs select ('[' || i || ',1,0]')::vector from generate_series(1, 200) i")
        XCTAssertEqual(try value(conn, "select count(*) from docs where e <=> '[1,1,0]' < 0.5") as Int, 200)
        XCTAssertThrowsError(
            try conn.query("create index on docs using ivfflat (e vector_cosine_ops) with (lists = 100)"))
        let migration =
            "create index on docs using hnsw (e vector_cosine_ops) WITH (m = 16, ef_construction = 64);\nselect 1;"
        var scalars = Array(migration.unicodeScalars)
        let blanked = VectorIndexOptions.blank(SQLScanner.statements(in: migration), in: &scalars)
        XCTAssertEqual(scalars.count, migration.unicodeScalars.count)
        XCTAssertFalse(String(String.UnicodeScalarView(scalars)).contains("ef_construction"))
        XCTAssertNoThrow(try conn.query(blanked[0].text))
        XCTAssertEqual(VectorIndexOptions.ranges(in: "create index i on t using btree (a) with (fillfactor = 70)"), [])
        // A `db dump` quotes the method, the columns and the options; these apply too.
        for dumped in [
            #"CREATE INDEX "i1" ON "public"."docs" USING "ivfflat" ("e" "extensions"."vector_cosine_ops") WITH ("lists"='100')"#,
            #"CREATE INDEX "i2" ON "public"."docs" USING "hnsw" ("e" "extensions"."vector_l2_ops") WITH ("m"='16', "ef_construction"='64')"#,
            "create index concurrently if not exists i3 on docs using HNSW ((e)) with (m=8) where e is not null",
        ] {
            var own = Array(dumped.unicodeScalars)
            let done = VectorIndexOptions.blank(SQLScanner.statements(in: dumped), in: &own)
            XCTAssertFalse(done[0].text.lowercased().contains("with ("), dumped)
            XCTAssertNoThrow(try conn.query(done[0].text.replacingOccurrences(of: "concurrently", with: "")), dumped)
        }
    }

    func testNetAndHttpRecordInsteadOfSending() throws {
        let conn = try database()
        _ = try conn.runScript(
            "create extension pg_net with schema extensions; create extension http with schema extensions")
        let id: Int64 = try value(conn, "select net.http_get('https://example.test/a', params => '{\"q\": \"a b\"}')")
        XCTAssertEqual(
            try value(conn, "select url from net.http_request_queue where id = $1", [id]) as String,
            "https://example.test/a?q=a%20b")
        try conn.query(
            "select net.http_delete('https://example.test/o/x.png', headers => '{\"Authorization\": \"Bearer k\"}')")
        XCTAssertEqual(
            try value(conn, "select headers->>'Authorization' from net.http_request_queue where method = 'DELETE'")
                as String, "Bearer k")
        XCTAssertEqual(
            try value(
                conn, "select (extensions.http_post('https://example.test/p', '{\"a\":1}', 'application/json')).status")
                as Int, 200)
        XCTAssertEqual(
            try value(conn, "select method || ' ' || url || ' ' || content from rlskit_http.requests") as String,
            "POST https://example.test/p {\"a\":1}")
        // The harness refuses real network functions, not these.
        XCTAssertEqual(try Catalog.networkFunctions(conn), [])
    }

    func testJwtVaultQueueAndJsonSchema() throws {
        let conn = try database()
        _ = try conn.runScript(
            "create extension pgjwt with schema extensions; create extension pgmq; create extension pg_jsonschema with schema extensions"
        )
        let token: String = try value(
            conn, "select extensions.sign('{\"sub\": \"u1\", \"exp\": 4102444800}', 'secret')")
        XCTAssertTrue(try value(conn, "select valid from extensions.verify($1, 'secret')", [token]) as Bool)
        XCTAssertFalse(try value(conn, "select valid from extensions.verify($1, 'other')", [token]) as Bool)

        let sid: String = try value(conn, "select vault.create_secret('first', 'api')::text")
        try conn.query("select vault.update_secret($1::uuid, 'second')", [sid])
        XCTAssertEqual(
            try value(conn, "select decrypted_secret from vault.decrypted_secrets where name = 'api'") as String,
            "second")
        XCTAssertNotEqual(try value(conn, "select secret from vault.secrets where name = 'api'") as String, "second")

        _ = try conn.runScript(
            "select pgmq.create('jobs'); select pgmq.send('jobs', '{\"n\": 1}'); select pgmq.send('jobs', '{\"n\": 2}', 60)"
        )
        XCTAssertEqual(try value(conn, "select count(*) from pgmq.read('jobs', 30, 10)") as Int, 1)
        XCTAssertEqual(
            try value(conn, "select count(*) from pgmq.read('jobs', 30, 10)") as Int, 0,
            "read messages stay hidden for vt")

        let schema =
            #"{"type": "object", "required": ["name"], "additionalProperties": false, "properties": {"name": {"type": "string", "minLength": 2}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}}}"#
        for (doc, ok) in [
            (#"{"name": "ab"}"#, true), (#"{"name": "a"}"#, false), (#"{}"#, false),
            (#"{"name": "ab", "x": 1}"#, false),
            (#"{"name": "ab", "tags": ["a", "c"]}"#, false), (#"{"name": "ab", "tags": ["b"]}"#, true),
            (#"{"name": 3}"#, false),
        ] {
            XCTAssertEqual(
                try value(conn, "select extensions.jsonb_matches_schema($1::json, $2::jsonb)", [schema, doc]) as Bool,
                ok, doc)
        }
    }

    func testPlatformObjectsAndPreinstalledExtensions() throws {
        let conn = try database()
        let installed = try conn.query("select extname::text from pg_extension order by 1").rows.map {
            try $0.decode(0) as String
        }
        for name in ["pg_graphql", "pg_stat_statements", "pgcrypto", "supabase_vault", "uuid-ossp"] {
            XCTAssertTrue(installed.contains(name), name)
        }
        XCTAssertEqual(
            try value(conn, "select count(*) from pg_publication where pubname = 'supabase_realtime'") as Int, 1)
        XCTAssertEqual(
            try value(conn, "select set_config('realtime.topic', 'room:1', true) || ' ' || realtime.topic()") as String,
            "room:1 room:1")
        XCTAssertNotNil(try value(conn, "select to_regprocedure('supabase_functions.http_request()')::text") as String?)
        XCTAssertEqual(
            try value(conn, "select graphql_public.graphql(query => '{ x }') -> 'errors' -> 0 ->> 'message'") as String,
            "rlskit stand-in: pg_graphql queries are not executed")
        // A dump re-creates what the platform pre-installs.
        for sql in [
            "create extension if not exists \"pg_graphql\" with schema \"graphql\"",
            "create extension if not exists \"supabase_vault\" with schema \"vault\"",
            "create extension if not exists \"pgsodium\" with schema \"pgsodium\"",
            "create extension if not exists \"pg_stat_monitor\" with schema \"extensions\"",
        ] {
            XCTAssertNoThrow(try conn.query(sql), sql)
        }
        XCTAssertEqual(
            try value(
                conn,
                "select extensions.pg_stat_monitor_reset()::text is null and not exists (select from extensions.pg_stat_monitor)"
            ) as Bool, true, "pg_stat_monitor: its view and functions, empty")
    }

    /// Storage functions the real schema has beyond the path helpers.
    func testStorageFunctions() throws {
        let conn = try database()
        _ = try conn.runScript(
            """
            insert into storage.buckets (id, name) values ('docs', 'docs');
            insert into storage.objects (bucket_id, name, metadata) values
              ('docs', 'u1/a.txt', '{"size": 10}'), ('docs', 'u1/b.txt', '{"size": 5}'), ('docs', 'u1/sub/c.txt', '{"size": 1}'), ('docs', 'u2/d.txt', '{"size": 2}');
            """)
        let names = try conn.query("select name from storage.search('u1/', 'docs', levels => 2)").rows.map {
            try $0.decode(0) as String
        }
        XCTAssertEqual(names, ["a.txt", "b.txt", "sub"])
        let listed = try conn.query(
            "select name, id is null as folder from storage.list_objects_with_delimiter('docs', 'u1/', '/')"
        ).rows
            .map { "\(try $0.decode(0) as String)\(try $0.decode(1) as Bool ? " (folder)" : "")" }
        XCTAssertEqual(listed, ["u1/a.txt", "u1/b.txt", "u1/sub/ (folder)"])
        XCTAssertEqual(
            try value(conn, "select size::int from storage.get_size_by_bucket() where bucket_id = 'docs'") as Int, 18)
        XCTAssertEqual(
            try value(
                conn,
                "select set_config('storage.operation', 'storage.object.upload', true) || ' ' || storage.operation()")
                as String,
            "storage.object.upload storage.object.upload")
        // Allowed: the probe insert is rolled back with PT200, as the Storage API expects.
        XCTAssertThrowsError(try conn.query("select storage.can_insert_object('docs', 'u3/x.txt', null, '{}')")) { e in
            XCTAssertEqual((e as? PostgresError)?.sqlState, "PT200")
        }
        XCTAssertEqual(try value(conn, "select count(*)::int from storage.objects where name = 'u3/x.txt'") as Int, 0)
        _ = try conn.runScript("begin; set local role anon")
        XCTAssertThrowsError(try conn.query("select storage.can_insert_object('docs', 'u3/x.txt', null, '{}')")) { e in
            XCTAssertEqual((e as? PostgresError)?.sqlState, "42501")
        }
        _ = try conn.runScript("rollback")
    }

    /// GoTrue's other tables, as seeds and triggers name them: a positional identity insert
    /// lands in GoTrue's columns, deleting the user cascades, the API roles get nothing.
    func testAuthTablesAsSeedsUseThem() throws {
        let conn = try database()
        _ = try conn.runScript(
            """
            insert into auth.users (id, email) values ('00000000-0000-4000-8000-00000000000d', 'dana@x.test');
            insert into auth.identities values ('dana-provider-id', '00000000-0000-4000-8000-00000000000d',
              '{"email": "Dana@X.test"}', 'email', now(), now(), now());
            insert into auth.sessions (id, user_id, aal) values
              ('00000000-0000-4000-8000-0000000000e1', '00000000-0000-4000-8000-00000000000d', 'aal2');
            insert into auth.mfa_factors (id, user_id, factor_type, status, created_at, updated_at) values
              ('00000000-0000-4000-8000-0000000000f1', '00000000-0000-4000-8000-00000000000d', 'totp', 'verified', now(), now());
            """)
        XCTAssertEqual(
            try value(conn, "select email || ' ' || (id is not null)::text from auth.identities") as String,
            "dana@x.test true")
        XCTAssertEqual(try value(conn, "select aal::text from auth.sessions") as String, "aal2")
        for role in ["anon", "authenticated", "service_role"] {
            _ = try conn.runScript("begin; set local role \(role)")
            XCTAssertThrowsError(try conn.query("select 1 from auth.identities")) { e in
                XCTAssertEqual((e as? PostgresError)?.sqlState, "42501", role)
            }
            _ = try conn.runScript("rollback")
        }
        _ = try conn.runScript("delete from auth.users")
        XCTAssertEqual(
            try value(
                conn,
                "select (select count(*) from auth.identities) + (select count(*) from auth.sessions) + (select count(*) from auth.mfa_factors)"
            ) as Int, 0)
    }

    /// GoTrue's SSO and PKCE tables, as `supabase db diff` output alters them.
    func testAuthSSOTablesAsDiffsAlterThem() throws {
        let conn = try database()
        _ = try conn.runScript(
            """
            alter table auth.saml_relay_states drop constraint saml_relay_states_flow_state_id_fkey;
            drop index if exists auth.mfa_factors_user_id_idx;
            alter table auth.saml_relay_states drop column flow_state_id;
            insert into auth.sso_providers (id, resource_id) values ('00000000-0000-4000-8000-0000000000a1', 'acme');
            insert into auth.sso_domains (id, sso_provider_id, domain)
              values ('00000000-0000-4000-8000-0000000000a2', '00000000-0000-4000-8000-0000000000a1', 'acme.test');
            insert into auth.flow_state (id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method)
              values ('00000000-0000-4000-8000-0000000000a3', 'code', 's256', 'challenge', 'github', 'oauth');
            """)
        XCTAssertEqual(
            try value(
                conn,
                "select count(*)::int from pg_indexes where schemaname = 'auth' and indexname = 'mfa_factors_user_id_idx'"
            )
                as Int, 0)
        for role in ["anon", "authenticated", "service_role"] {
            _ = try conn.runScript("begin; set local role \(role)")
            XCTAssertThrowsError(try conn.query("select 1 from auth.sso_domains")) { e in
                XCTAssertEqual((e as? PostgresError)?.sqlState, "42501", role)
            }
            _ = try conn.runScript("rollback")
        }
        XCTAssertNoThrow(try StandIn.install(conn), "the stand-in installs again over them")
    }

    /// pg_tle's registry, as dbdev's install and migrations call it: kept, listed, removed.
    func testTleRegistersExtensions() throws {
        let conn = try database()
        try conn.query("create extension if not exists pg_tle")
        XCTAssertTrue(
            try value(conn, "select pgtle.install_extension('my_ext', '1.0', 'mine', $x$ select 1 $x$)") as Bool)
        XCTAssertTrue(
            try value(conn, "select pgtle.install_extension_version_sql('my_ext', '1.1', 'select 2')") as Bool)
        XCTAssertEqual(
            try value(conn, "select string_agg(name || ' ' || default_version, ',') from pgtle.available_extensions()")
                as String, "my_ext 1.0")
        XCTAssertThrowsError(try conn.query("select pgtle.install_extension('my_ext', '1.0', 'again', 'select 1')")) {
            XCTAssertEqual(($0 as? PostgresError)?.sqlState, "42710")
        }
        XCTAssertTrue(try value(conn, "select pgtle.uninstall_extension_if_exists('my_ext')") as Bool)
        XCTAssertFalse(try value(conn, "select pgtle.uninstall_extension_if_exists('my_ext')") as Bool)
    }

    /// A database webhook fires with no migration enabling pg_net, as on the platform (which has
    /// it installed): the recording stand-in is created for it and holds the request.
    func testWebhookWithoutPgNetMigrationRecords() throws {
        let conn = try database()
        _ = try conn.runScript(
            """
            create table public.invites (id int primary key, email text);
            create trigger "invite-sent" after insert on public.invites for each row
              execute function supabase_functions.http_request('https://example.test/hook', 'POST', '{}', '{}', '1000');
            """)
        XCTAssertNil(try value(conn, "select to_regnamespace('net')::text") as String?)
        try conn.query("insert into public.invites values (1, 'a@x.test')")
        XCTAssertEqual(
            try value(
                conn,
                "select method || ' ' || url || ' ' || (convert_from(body, 'UTF8')::jsonb ->> 'type') from net.http_request_queue"
            ) as String, "POST https://example.test/hook INSERT")
        XCTAssertEqual(try value(conn, "select count(*)::int from supabase_functions.hooks") as Int, 1)
    }
}
