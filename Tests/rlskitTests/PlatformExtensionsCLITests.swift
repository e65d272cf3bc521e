import Foundation
import TestSupport
import XCTest

/// Extensions as the platform ships them: Supabase Wrappers' wrappers apply (a query on a foreign
/// table fails with one line), and pgTAP belongs to the admin, as supautils creates it, so a
/// project's default privileges do not strip it.
final class PlatformExtensionsCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func project(migrations: [String: String], tests: [String: String] = [:]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (sub, files) in [("m", migrations), ("t", tests)] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
            for (n, t) in files { try t.write(toFile: dir + "/\(sub)/" + n, atomically: true, encoding: .utf8) }
        }
        return dir
    }

    func check(_ dir: String) throws -> CLI.Outcome {
        try CLI.run(
            ["check", "--dir", dir + "/m", "--tests", dir + "/t"], environment: ["TMPDIR": dir], directory: dir)
    }

    func testWrappersApplyAndAForeignTableQueryFailsWithOneLine() throws {
        let dir = try project(
            migrations: [
                "0001_wrappers.sql": """
                create extension if not exists wrappers with schema extensions;
                create foreign data wrapper stripe_wrapper handler stripe_fdw_handler validator stripe_fdw_validator;
                create server stripe_server foreign data wrapper stripe_wrapper
                  options (api_key_id 'key', api_url 'https://api.stripe.com/v1/');
                create schema if not exists stripe;
                create foreign table stripe.customers (id text, email text) server stripe_server
                  options (object 'customers');
                create foreign data wrapper s3_wrapper handler s3_fdw_handler validator s3_fdw_validator;
                create server s3_server foreign data wrapper s3_wrapper options (aws_region 'us-east-1');

                """
            ],
            tests: [
                "wrappers_test.sql": """
                begin;
                select plan(3);
                select is((select fdwowner::regrole::text from pg_foreign_data_wrapper where fdwname = 'stripe_wrapper'),
                          'postgres', 'postgres owns the wrapper it created');
                select has_foreign_table('stripe', 'customers', 'the foreign table is declared');
                select throws_ok('select * from stripe.customers', '0A000', null, 'a query on it fails');
                select * from finish();
                rollback;

                """
            ])
        let r = try check(dir)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +3 passed, 0 failed"#, options: .regularExpression), r.output)
        XCTAssertTrue(r.stdout.contains("wrappers (foreign tables declared, never queried)"), r.output)

        try "select count(*) from stripe.customers;\n".write(
            toFile: dir + "/m/0002_query.sql", atomically: true, encoding: .utf8)
        let q = try CLI.run(["apply", "--dir", dir + "/m"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(q.code, 3, q.output)
        XCTAssertTrue(
            q.stderr.contains("0002_query.sql:1:1: stripe_fdw_handler() is rlskit's stand-in for a Supabase Wrappers"),
            q.stderr)
        XCTAssertEqual(q.stderr.split(separator: "\n").count, 1, q.stderr)
    }

    func testPgTAPIsTheAdminsSoDefaultPrivilegesDoNotStripIt() throws {
        // A schema's default privileges only add to the global ones (PostgreSQL's rule): the
        // second revoke leaves the project's new functions to PUBLIC.
        for (revoke, schema, own) in [
            ("alter default privileges revoke execute on functions from public;", "public", false),
            ("alter default privileges in schema extensions revoke all on functions from public;", "extensions", true),
        ] {
            let dir = try project(
                migrations: [
                    "0001_revoke.sql": revoke + "\n",
                    "0002_pgtap.sql": "create extension if not exists pgtap with schema extensions;\n",
                    "0003_own.sql": "create function \(schema).mine() returns int language sql as $$ select 1 $$;\n",
                ],
                tests: [
                    "privileges_test.sql": """
                    begin;
                    select plan(3);
                    select is((select proowner::regrole::text from pg_proc where proname = 'finish' limit 1),
                              'supabase_admin', 'pgTAP is created by the admin, as supautils creates it');
                    select is(has_function_privilege('authenticated', 'extensions.ok(boolean, text)', 'execute'), true,
                              'the API roles may still run pgTAP');
                    select is(has_function_privilege('anon', '\(schema).mine()', 'execute'), \(own),
                              'the project''s own functions follow its default privileges');
                    set local role authenticated;
                    select * from finish();
                    rollback;

                    """
                ])
            let r = try check(dir)
            XCTAssertNotNil(r.stdout.range(of: #"✓ test +3 passed, 0 failed"#, options: .regularExpression), r.output)
        }
    }

    /// pgmq 1.5's headers, and a PG 15 project's pgsodium key table, sequence and views, as a
    /// `db dump --data-only` seed touches them.
    func testPgmqHeadersAndPgsodiumKeys() throws {
        let dir = try project(
            migrations: [
                "0001_ext.sql": """
                create extension if not exists pgmq;
                create extension if not exists pgsodium with schema pgsodium;
                select pgmq.create('jobs');
                select pgmq.send('jobs', '{"n": 1}'::jsonb, '{"trace": "t1"}'::jsonb);
                select pgmq.send('jobs', '{"n": 2}');
                select pgmq.send('jobs', '{"n": 3}', 60);
                select pgmq.send_batch('jobs', array['{"n": 4}'::jsonb], array['{"trace": "t4"}'::jsonb]);
                select pg_catalog.setval('"pgsodium"."key_key_id_seq"', 7, true);
                insert into "pgsodium"."key" ("id", "status", "created", "key_type", "key_id", "key_context", "name")
                  values ('5b0a9e8c-1f7e-4c3b-9a53-6d1f3c2b7e01', 'valid', now(), 'aead-det', 1, '\\x7067736f6469756d', 'seeded');

                """
            ],
            tests: [
                "ext_test.sql": """
                begin;
                select plan(5);
                select results_eq($$select message->>'n', headers->>'trace' from pgmq.read('jobs', 30, 10) order by msg_id$$,
                  $$values ('1', 't1'), ('2', null), ('4', 't4')$$, 'messages carry their headers; the delayed one waits');
                select is((select count(*)::int from pgsodium.valid_key where name = 'seeded'), 1, 'the seeded key is valid');
                select has_view('pgsodium', 'decrypted_key', 'pgsodium.decrypted_key exists');
                select is(nextval('pgsodium.key_key_id_seq'), 8::bigint, 'the sequence continues from the seed');
                select throws_ok($$insert into pgsodium.key (name, key_id, key_context, raw_key) values ('x', 1, 'a', 'b')$$,
                  '23514', null, 'a raw key needs a parent, as pgsodium checks');
                select * from finish();
                rollback;

                """
            ])
        let r = try check(dir)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +5 passed, 0 failed"#, options: .regularExpression), r.output)
    }
}
