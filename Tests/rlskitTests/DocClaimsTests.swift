import Foundation
import TestSupport
import XCTest

/// What the README and the pages its first sections link say about what applies and what a run
/// prints, run as written: each example is read from the page, so a claim that stops being
/// true fails here.
final class DocClaimsTests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    /// A project folder holding `files`.
    func project(_ files: [String: String]) throws -> String {
        let tmp = try CLI.temporaryDirectory()
        dirs.append(tmp)
        for (path, text) in files {
            let full = tmp + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return tmp
    }

    /// docs/platform.md: a `db diff` migration that alters GoTrue's SSO tables stops the run with
    /// the line the page shows; the same statement's table read by a seed applies.
    func testDiffMigrationAlteringGoTrueTablesStopsAsThePageSays() throws {
        let statement = try DocPage.block(startingWith: "alter table auth.", in: "docs/platform.md")
        let printed = try DocPage.block(startingWith: "rlskit: supabase/migrations/", in: "docs/platform.md")
        let migration = String(printed.dropFirst("rlskit: ".count).prefix { $0 != ":" })
        let dir = try project([migration: statement + "\n"])
        let r = try CLI.run(["check"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), printed, r.stderr)
        // The other forms of the same change: an index of GoTrue's, a quoted name; storage's too.
        for (other, owner) in [
            (
                "drop index if exists auth.mfa_factors_user_id_idx;",
                "auth.mfa_factors_user_id_idx is the Auth server's (supabase_auth_admin)"
            ),
            (
                #"alter table "auth"."sso_domains" add column note text;"#,
                "auth.sso_domains is the Auth server's (supabase_auth_admin)"
            ),
            (
                "alter table storage.buckets add column note text;",
                "storage.buckets is the Storage API's (supabase_storage_admin)"
            ),
        ] {
            let d = try project([migration: "create table public.notes (id int primary key);\n" + other + "\n"])
            let o = try CLI.run(["check"], environment: ["TMPDIR": d], directory: d)
            XCTAssertEqual(o.code, 3, o.output)
            XCTAssertTrue(o.stderr.contains(owner), "\(other): \(o.stderr)")
            XCTAssertTrue(o.stderr.contains(":2:1: must be owner of "), o.stderr)
        }
    }

    /// docs/platform.md: "a seed that creates a user with its identity or an SSO provider applies".
    func testSeedIntoGoTrueTablesApplies() throws {
        XCTAssertTrue(
            try DocPage.read("docs/platform.md").contains(
                "a seed that creates a user with its identity or an SSO provider applies"))
        let seed = """
            insert into auth.users (id, email) values ('00000000-0000-4000-8000-000000000001', 'a@example.com');
            insert into auth.identities (provider_id, user_id, identity_data, provider)
              values ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000001', '{}', 'email');
            insert into auth.sso_providers (id, resource_id) values ('00000000-0000-4000-8000-0000000000a1', 'acme');

            """
        let dir = try project([
            "supabase/migrations/20250101000000_notes.sql": "create table public.notes (id int primary key);\n",
            "supabase/seed.sql": seed,
        ])
        let r = try CLI.run(["check", "--allow-empty"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertTrue(r.stdout.contains("; seeded from supabase/seed.sql;"), r.output)
        XCTAssertFalse(r.stderr.contains("rlskit: "), r.stderr)
    }

    /// docs/apply.md: what `apply` prints after the error, line for line.
    func testApplyStopSummaryIsThePageOne() throws {
        let shown = try DocPage.block(startingWith: "apply stopped at", in: "docs/apply.md")
        let dir = try project([
            "m/001_ok.sql": "create table t1 (x int);",
            "m/002_bad.sql": "create table t2 (x int);\ncreate tabel t3 (x int);",
            "m/003_later.sql": "create table t4 (x int);",
            "m/004_last.sql": "create table t5 (x int);",
        ])
        let r = try CLI.run(["apply", "--dir", "m"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "the error is one line: \(r.stderr)")
        XCTAssertTrue(r.stdout.hasSuffix(shown + "\n"), r.stdout)
    }

    /// README's Quick start: the demo run ends with the lines the README shows.
    func testQuickStartEndsAsTheREADMEShows() throws {
        let shown = try DocPage.block(after: "It ends like this", in: "README.md").split(separator: "\n")
        let dir = try project([:])
        let r = try CLI.run(["check", "--builtin"], environment: ["TMPDIR": dir], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.last, shown.last, r.stdout)
        XCTAssertTrue(shown.last?.hasPrefix("next: ") == true)
        XCTAssertTrue(lines.dropLast().last?.hasPrefix("passed in ") == true, r.stdout)
        XCTAssertTrue(shown.dropLast().last?.hasPrefix("passed in ") == true)
    }
}
