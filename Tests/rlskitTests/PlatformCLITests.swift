import Foundation
import Postgres
import TestSupport
import XCTest

/// A Supabase project's own migrations and tests run unchanged on the throwaway server:
/// the platform's extensions (real or stand-in) and objects are there.
final class PlatformCLITests: XCTestCase {
    static var fixture: String { Provisioned.repositoryRoot + "/Tests/Fixtures/platform" }

    /// Every pre-installed and commonly enabled extension, used as projects use them; the
    /// scenarios and pgTAP file assert on the requests pg_net and http record.
    func testFixtureProjectChecksWithStandIns() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(
            [
                "check", "--dir", Self.fixture + "/migrations", "--tests", Self.fixture + "/tests",
                "--json", tmp + "/r.json",
            ], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("4 migrations applied"), r.stdout)
        for name in [
            "http", "pg_graphql", "pg_jsonschema", "pg_net", "pg_tle", "pgjwt", "pgmq", "pgsodium", "supabase_vault",
            "vector",
        ] {
            XCTAssertTrue(r.stdout.contains(" \(name)"), "stand-in \(name) not listed: \(r.stdout)")
        }
        XCTAssertTrue(r.stdout.contains("vector (similarity results are not meaningful)"), r.stdout)
        XCTAssertFalse(r.stdout.contains("pg_cron ("), "pg_cron is the real extension, not a stand-in")
        let json = try String(contentsOfFile: tmp + "/r.json", encoding: .utf8)
        XCTAssertTrue(json.contains("replacing an avatar requests DELETE of the old object"), json)
        XCTAssertTrue(json.contains("realtime authorization reads the topic"), json)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +[0-9]+ passed, 0 failed"#, options: .regularExpression), r.stdout)
    }

    func testUnavailableExtensionSaysWhatToInstall() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try "-- needs a package manager\ncreate extension if not exists \"supabase-dbdev\";\n"
            .write(toFile: tmp + "/m/0001_wrappers.sql", atomically: true, encoding: .utf8)
        var r = try CLI.run(["apply", "--dir", tmp + "/m"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertNotEqual(r.code, 0)
        XCTAssertTrue(
            r.stderr.contains(
                "0001_wrappers.sql:2:1: extension \"supabase-dbdev\" is not available on this server and rlskit has no stand-in for it"
            ), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)

        try "create extension pg_repack;\n".write(
            toFile: tmp + "/m/0001_wrappers.sql", atomically: true, encoding: .utf8)
        r = try CLI.run(["apply", "--dir", tmp + "/m"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertNotNil(
            r.stderr.range(
                of:
                    #"0001_wrappers\.sql:1:1: extension "pg_repack" is not available on this server: install postgresql-[0-9]+-repack"#,
                options: .regularExpression), r.stderr)
    }

    /// Unqualified pgcrypto and uuid-ossp functions resolve as on the platform, for postgres
    /// (search path "$user", public, extensions) and for the API roles (PostgREST's request
    /// search path: public, extensions).
    func testPlatformSearchPath() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp + "/t", withIntermediateDirectories: true)
        try """
        create table public.notes (id uuid primary key default uuid_generate_v4(), salt text default gen_salt('bf', 4),
          token bytea default gen_random_bytes(8), hashed text default crypt('pw', gen_salt('md5')), d bytea default digest('x', 'sha1'));
        grant select, insert on public.notes to anon;
        """.write(toFile: tmp + "/m/0001_notes.sql", atomically: true, encoding: .utf8)
        try """
        scenario anon's defaults resolve through the search path
          as anon: insert into public.notes default values
            expect 1 row affected
          as anon: select current_setting('search_path')
            expect value public, extensions
          as anon: select length(encode(gen_random_bytes(4), 'hex'))
            expect value 8
        """.write(toFile: tmp + "/t/path.scenario", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--tests", tmp + "/t", "--fail-on", "error"], environment: ["TMPDIR": tmp],
            directory: tmp)
        XCTAssertTrue(r.stdout.contains("3 passed, 0 failed"), r.output)
    }
}
