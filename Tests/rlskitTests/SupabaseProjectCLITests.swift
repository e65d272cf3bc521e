import Foundation
import TestSupport
import XCTest

/// A Supabase CLI project checked unchanged: `config.toml` read, the seed run after the
/// migrations, a dump-style file's session settings kept to itself, a BEGIN … COMMIT block
/// accepted and `ALL_MIGRATIONS.sql` skipped.
final class SupabaseProjectCLITests: XCTestCase {
    static var fixture: String { Provisioned.repositoryRoot + "/Tests/Fixtures/supabase-cli" }

    func testCLIProjectChecksUnchanged() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(
            ["check", "--dir", Self.fixture + "/supabase/migrations", "--tests", Self.fixture + "/supabase/tests"],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("2 migrations applied"), r.stdout)
        XCTAssertTrue(r.stdout.contains("seeded from \(Self.fixture)/supabase/seed.sql"), r.stdout)
        XCTAssertTrue(r.stdout.contains("skipped ALL_MIGRATIONS.sql"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains(
                "from \(Self.fixture)/supabase/config.toml: api.schemas, api.extra_search_path, db.seed.enabled, db.seed.sql_paths, "
                    + "storage.buckets.avatars.public, storage.buckets.avatars.file_size_limit, "
                    + "storage.buckets.avatars.allowed_mime_types, auth.hook.custom_access_token.enabled, auth.hook.custom_access_token.uri"
            ), r.stdout)
        XCTAssertTrue(r.stdout.contains("; bucket avatars;"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("custom access token hook pg-functions://postgres/public/custom_access_token_hook"),
            r.stdout)
        XCTAssertNotNil(r.stdout.range(of: #"✓ test +5 passed, 0 failed"#, options: .regularExpression), r.stdout)
    }

    /// `rlskit test` on a throwaway server provisions the project found in the working
    /// directory, seed included.
    func testTestCommandSeedsTheThrowawayDatabase() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.copyItem(atPath: Self.fixture + "/supabase", toPath: tmp + "/supabase")
        let r = try CLI.run(["test", "supabase/tests"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stderr.contains("and seed supabase/seed.sql"), r.stderr)
    }

    func testMalformedConfigIsOneLineExit2() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/migrations", withIntermediateDirectories: true)
        try "select 1;\n".write(toFile: tmp + "/supabase/migrations/001_a.sql", atomically: true, encoding: .utf8)
        try "[db.seed]\nenabled = yes\n".write(toFile: tmp + "/supabase/config.toml", atomically: true, encoding: .utf8)
        for command in ["check", "apply"] {
            let r = try CLI.run([command], environment: ["TMPDIR": tmp], directory: tmp)
            XCTAssertEqual(r.code, 2, r.output)
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: supabase/config.toml:2"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }
}

extension SupabaseProjectCLITests {
    /// `[api] schemas` decides which RLS tables `--strict` wants declared.
    func testConfigSchemasAreTheHarnessesExposedSchemas() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/migrations", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/tests", withIntermediateDirectories: true)
        try """
        create schema api;
        create table api.secrets (id uuid primary key default gen_random_uuid(), owner uuid);
        alter table api.secrets enable row level security;
        create policy "owners" on api.secrets for select to authenticated using (owner = (select auth.uid()));
        create table public.notes (id uuid primary key default gen_random_uuid(), owner uuid);
        alter table public.notes enable row level security;
        create policy "owners" on public.notes for select to authenticated using (owner = (select auth.uid()));
        grant select on public.notes to authenticated;
        """.write(toFile: tmp + "/supabase/migrations/20260601000000_api.sql", atomically: true, encoding: .utf8)
        try "table public.notes\n  owner owner\n  read owner\n  write nobody\n".write(
            toFile: tmp + "/supabase/tests/access.rls", atomically: true, encoding: .utf8)
        try "[api]\nschemas = [\"api\"]\n".write(
            toFile: tmp + "/supabase/config.toml", atomically: true, encoding: .utf8)
        let r = try CLI.run(["check", "--strict"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertTrue(r.stdout.contains("api.secrets has row level security but no block in the access file"), r.output)
    }

    /// A `[db.seed] sql_paths` pattern that matches nothing is a warning, as `supabase db reset`
    /// gives, in the summary's apply line: the run goes on.
    func testUnmatchedSeedPatternIsOneWarning() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/migrations", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/seeds", withIntermediateDirectories: true)
        try "create table public.t (id int);\nalter table public.t enable row level security;\n".write(
            toFile: tmp + "/supabase/migrations/20260601000000_t.sql", atomically: true, encoding: .utf8)
        try "insert into public.t values (1);\n".write(
            toFile: tmp + "/supabase/seeds/a.sql", atomically: true, encoding: .utf8)
        try "[db.seed]\nsql_paths = ['./seeds/*.sql', './fixtures/*.sql']\n".write(
            toFile: tmp + "/supabase/config.toml", atomically: true, encoding: .utf8)
        let r = try CLI.run(["check", "--allow-empty"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("seeded from supabase/seeds/a.sql"), r.stdout)
        let warning =
            "warning: no seed files matched supabase/fixtures/*.sql ([db.seed] sql_paths in supabase/config.toml; "
            + "as `supabase db reset`, the run goes on without them)"
        XCTAssertEqual(r.stdout.components(separatedBy: warning).count, 2, r.stdout)
        let apply = try CLI.run(["apply"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(apply.code, 0, apply.output)
        XCTAssertTrue(apply.output.contains(warning), apply.output)
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/tests", withIntermediateDirectories: true)
        try "select plan(1);\nselect ok(true);\n".write(
            toFile: tmp + "/supabase/tests/t_test.sql", atomically: true, encoding: .utf8)
        let pgtap = try CLI.run(["pgtap"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(pgtap.code, 0, pgtap.output)
        XCTAssertTrue(pgtap.stderr.contains(warning), pgtap.output)
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/fixtures", withIntermediateDirectories: true)
        try "select 1;\n".write(toFile: tmp + "/supabase/fixtures/b.sql", atomically: true, encoding: .utf8)
        let all = try CLI.run(["check", "--allow-empty"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertFalse(all.output.contains("no seed files matched"), all.output)
    }
}
