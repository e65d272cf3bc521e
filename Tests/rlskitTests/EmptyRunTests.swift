import Foundation
import TestSupport
import XCTest

/// A run that applied nothing or tested nothing never passes by default, and never says "passed".
final class EmptyRunTests: XCTestCase {
    func testEmptyMigrationFolderFailsUnlessAllowed() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        let r = try CLI.run(["check", "--dir", tmp + "/m"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("✗ apply"), r.stdout)
        XCTAssertTrue(r.stdout.contains("nothing applied: no .sql files in \(tmp)/m"), r.stdout)
        XCTAssertTrue(r.stdout.contains("✗ test"), r.stdout)
        XCTAssertFalse(r.stdout.contains("passed in"), r.stdout)
        XCTAssertTrue(r.stdout.contains("failed: nothing was applied"), r.stdout)
        let withJSON = try CLI.run(
            ["check", "--dir", tmp + "/m", "--json", tmp + "/f.json"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(withJSON.code, 1, withJSON.output)
        XCTAssertTrue(try String(contentsOfFile: tmp + "/f.json", encoding: .utf8).contains("\"checkedNothing\": true"))

        let allowed = try CLI.run(
            ["check", "--dir", tmp + "/m", "--allow-empty", "--json", tmp + "/r.json"], environment: ["TMPDIR": tmp],
            directory: tmp)
        XCTAssertEqual(allowed.code, 0, allowed.output)
        // JSON says it without reading the phases; the exit code is --allow-empty's.
        let json = try String(contentsOfFile: tmp + "/r.json", encoding: .utf8)
        for field in ["\"checkedNothing\": true", "\"nothingApplied\": true", "\"nothingTested\": true"] {
            XCTAssertTrue(json.contains(field), json)
        }
        XCTAssertTrue(allowed.stdout.contains("nothing checked (nothing was applied; allowed by --allow-empty)"))
        XCTAssertFalse(allowed.stdout.contains("passed"), allowed.stdout)
    }

    /// `--dir m` and `--json x` relative and one character long (the toolchain's path helper
    /// trapped on those); an allowed empty run whose audit fails names the audit, not --allow-empty.
    func testOneCharacterRelativePathsAndAnAllowedEmptyRunFailingItsAudit() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try "create table public.t (id int primary key);\n".write(
            toFile: tmp + "/m/20240101000000_t.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(["check", "--dir", "m", "--json", "x"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("failed: nothing was tested (add tests, or pass --allow-empty"), r.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: tmp + "/x"), r.output)

        let allowed = try CLI.run(
            ["check", "--dir", "m", "--allow-empty"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(allowed.code, 1, allowed.output)
        XCTAssertTrue(
            allowed.stdout.contains("failed: audit (nothing was tested; allowed by --allow-empty)"), allowed.stdout)
        XCTAssertFalse(allowed.stdout.contains("or pass --allow-empty"), allowed.stdout)
    }

    /// A project folder with no migrations folder is not silently given the example schema.
    func testFolderWithoutMigrationsDoesNotCheckTheBuiltInSchema() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(["check"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertFalse(r.output.contains("built-in"), r.output)
        XCTAssertTrue(
            r.stdout.contains(
                "nothing applied: no sql/migrations or supabase/migrations here (give --dir DIR, or --builtin)"),
            r.stdout)
        XCTAssertFalse(r.stdout.contains("passed"), r.stdout)

        let builtin = try CLI.run(
            ["check", "--builtin", "--json", tmp + "/b.json"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(builtin.code, 0, builtin.output)
        let json = try String(contentsOfFile: tmp + "/b.json", encoding: .utf8)
        for field in ["\"checkedNothing\": false", "\"nothingApplied\": false", "\"nothingTested\": false"] {
            XCTAssertTrue(json.contains(field), json)
        }
        XCTAssertTrue(builtin.stdout.contains("from the built-in schema"), builtin.stdout)
        XCTAssertTrue(builtin.stdout.contains("passed in"), builtin.stdout)

        let both = try CLI.run(["check", "--builtin", "--dir", tmp], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(both.code, 2, both.output)
    }

    /// Migrations with RLS tables but no tests: every such table is named, with how to start.
    func testUntestedTablesAreNamed() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/migrations", withIntermediateDirectories: true)
        try """
        create table public.notes (id int primary key, body text);
        alter table public.notes enable row level security;
        create table public."Team Docs" (id int primary key);
        alter table public."Team Docs" enable row level security;
        create table public.plain (id int primary key);
        """.write(toFile: tmp + "/supabase/migrations/0001_init.sql", atomically: true, encoding: .utf8)
        // By default the tables are attacked with their intent inferred: that is a check.
        let inferred = try CLI.run(["check"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(inferred.code, 0, inferred.output)
        XCTAssertTrue(inferred.stdout.contains("the tables were attacked instead"), inferred.stdout)
        XCTAssertTrue(inferred.stdout.contains("2 tables without declared intent attacked"), inferred.stdout)
        XCTAssertFalse(inferred.stdout.contains("untested (row level security on"), inferred.stdout)
        // Without the attack, nothing was tested.
        let r = try CLI.run(
            ["check", "--no-inferred", "--html", tmp + "/r.html"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("1 migration applied from supabase/migrations"), r.stdout)
        let html = try String(contentsOfFile: tmp + "/r.html", encoding: .utf8)
        XCTAssertTrue(
            html.contains(
                "<caption>public.notes</caption><tbody><tr><td class=\"c-skipped\">– not covered: row level security is on"
            ),
            html)
        XCTAssertTrue(html.contains("<caption>public.&quot;Team Docs&quot;</caption>"), html)
        XCTAssertTrue(r.stdout.contains("2 RLS tables untested"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("untested (row level security on, no tests): public.\"Team Docs\", public.notes"),
            r.stdout)
        XCTAssertFalse(r.stdout.contains("public.plain,"), r.stdout)
        XCTAssertTrue(r.stdout.contains("next: rlskit init drafts an access file"), r.stdout)
        XCTAssertTrue(r.stdout.contains("failed: nothing was tested"), r.stdout)
    }
}

extension EmptyRunTests {
    /// `test` on a throwaway server outside any project gets the stand-in, not rlskit's schema.
    func testTestOutsideAProjectDoesNotGetTheExampleSchema() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/sql/tests", withIntermediateDirectories: true)
        try "table public.profiles\n  owner id\n  read anyone\n  write owner\n".write(
            toFile: tmp + "/sql/tests/access.rls", atomically: true, encoding: .utf8)
        let r = try CLI.run(["test"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertNotEqual(r.code, 0, r.output)
        XCTAssertTrue(
            r.stderr.contains(
                "no sql/migrations or supabase/migrations here: the throwaway database has the Supabase stand-in only"),
            r.stderr)
        XCTAssertFalse(r.output.contains("built-in"), r.output)
    }
}

extension EmptyRunTests {
    /// `apply` outside a project refuses instead of applying the example schema; --builtin asks for it.
    func testApplyOutsideAProjectRefuses() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(["apply"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertEqual(
            r.stderr.split(separator: "\n").last,
            "rlskit: nothing to apply: no sql/migrations or supabase/migrations in this folder; give --dir DIR (or --builtin for rlskit's example schema)"
        )
        let builtin = try CLI.run(["apply", "--builtin"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(builtin.code, 0, builtin.output)
        XCTAssertTrue(builtin.stdout.contains("applying the built-in schema to"), builtin.stdout)
    }
}
