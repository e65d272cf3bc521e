import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Mistakes in access files and scenarios are one `file:line: …` line and nothing runs; tables
/// whose names need quotes are declarable and run.
final class UserFileMistakeTests: XCTestCase {
    nonisolated(unsafe) static var db: (name: String, connectionString: ConnectionString)?

    override class func setUp() {
        super.setUp()
        db = try? OurSchema.makeDatabase(
            extra: """
                create table public."we;ird""t" (id uuid primary key default gen_random_uuid(),
                  owner_id uuid not null default auth.uid() references auth.users (id), body text not null);
                create table public."a#b c" (owner_id uuid not null references auth.users (id), note text);
                alter table public."we;ird""t" enable row level security;
                alter table public."a#b c" enable row level security;
                grant select, insert, update, delete on public."we;ird""t", public."a#b c" to authenticated;
                grant all on public."we;ird""t", public."a#b c" to service_role;
                create policy own on public."we;ird""t" for all to authenticated
                  using ((select auth.uid()) = owner_id) with check ((select auth.uid()) = owner_id);
                create policy own on public."a#b c" for all to authenticated
                  using ((select auth.uid()) = owner_id) with check ((select auth.uid()) = owner_id);
                """)
    }

    override class func tearDown() {
        if let db { TestServer.drop(db.name) }
        super.tearDown()
    }

    var target: ConnectionString { get throws { try XCTUnwrap(Self.db).connectionString } }

    static let posts =
        "table public.posts\n  owner author_id\n  read anyone\n  write owner\n  seed image_path = '{owner}/x-{n}.png'\n"
    static let weird =
        "table public.\"we;ird\"\"t\"   # a comment\n  owner owner_id\n  read owner\n  write owner\n"
        + "table public.\"a#b c\"\n  owner owner_id\n  read owner\n  write owner\n"

    /// The one-line error a run of these files stops with (parsing and planning), or nil when it ran.
    func runError(_ files: [(String, String)], strict: Bool = false) throws -> String? {
        do {
            var options = HarnessOptions()
            options.strict = strict
            _ = try Harness.run(try HarnessLoader.parse(files), options: options, on: try target)
            return nil
        } catch let e as InputError {
            XCTAssertFalse(e.description.contains("\n"), e.description)
            return e.description
        }
    }

    func assertError(_ files: [(String, String)], _ prefix: String, _ contains: String = "", line: UInt = #line) throws
    {
        let e = try runError(files)
        XCTAssertTrue(e?.hasPrefix(prefix) ?? false, "\(files.map(\.1)) → \(e ?? "ran")", line: line)
        if !contains.isEmpty {
            XCTAssertTrue(e?.contains(contains) ?? false, "\(e ?? "ran") lacks \(contains)", line: line)
        }
    }

    // 1. Runs that test nothing.

    func testAccessFileDeclaringNothingIsAnError() throws {
        try assertError([("a.rls", "# nothing here yet\n\n")], "a.rls:1: ", "no table or bucket")
        try assertError([("a.rls", "# only the schemas\nexpose public\n")], "a.rls:1: ", "no table or bucket")
        try assertError([("a.rls", "")], "a.rls:1: ")
    }

    func testExposeOfMissingSchemaIsAnErrorAtItsLine() throws {
        try assertError([("a.rls", "# intent\nexpose public nosuchschema\n" + Self.posts)], "a.rls:2: ", "nosuchschema")
    }

    func testOwnerColumnMustHoldAUserId() throws {
        try assertError(
            [("a.rls", "table public.posts\n  owner caption\n  read anyone\n  write owner\n")], "a.rls:2: ", "text")
        // A uuid owner still runs.
        XCTAssertNil(try runError([("a.rls", Self.posts)]))
    }

    // 2. Access file validation.

    func testSeedMistakesAreReportedAtTheirLine() throws {
        try assertError([("a.rls", Self.posts + "  seed nosuch = 1\n")], "a.rls:6: ", "nosuch")
        let unterminated =
            "table public.posts\n  owner author_id\n  read anyone\n  write owner\n  seed image_path = 'unterminated\n"
        try assertError([("a.rls", unterminated)], "a.rls:5: ", "image_path")
        try assertError([("a.rls", Self.posts + "  seed caption = no_such_function()\n")], "a.rls:6: ", "caption")
    }

    func testRepeatedSettingsAreErrorsAtTheSecondLine() throws {
        let cases: [(String, String)] = [
            (
                "table posts\n  owner author_id\n  owner id\n  read anyone\n  write owner\n",
                "a.rls:3: 'owner' is already set at line 2"
            ),
            (
                "table posts\n  owner author_id\n  read anyone\n  write owner\n  read owner\n",
                "a.rls:5: 'read' is already set at line 3"
            ),
            (
                "table posts\n  owner author_id\n  read anyone\n  write owner\n  write nobody\n",
                "a.rls:5: 'write' is already set at line 4"
            ),
            (
                "table posts\n  owner author_id\n  read anyone\n  write owner\n  delete nobody\n  delete owner\n",
                "a.rls:6: 'delete' is already set at line 5"
            ),
            (
                "table posts\n  owner author_id\n  read anyone\n  write owner\n  seed a = 1\n  seed a = 2\n",
                "a.rls:6: 'seed a' is already set at line 5"
            ),
            (
                "bucket avatars\n  read public\n  read owner\n  write own-folder\n",
                "a.rls:3: 'read' is already set at line 2"
            ),
        ]
        for (text, prefix) in cases {
            XCTAssertThrowsError(try AccessFile.parse(text, path: "a.rls")) { e in
                XCTAssertTrue("\(e)".hasPrefix(prefix), "\(text.debugDescription) → \(e)")
            }
        }
        // A per-operation line overrides 'write' whichever comes first.
        let a = try AccessFile.parse(
            "table posts\n  owner author_id\n  delete nobody\n  read anyone\n  write owner\n", path: "a.rls")
        XCTAssertEqual([a.tables[0].insert, a.tables[0].update, a.tables[0].delete], [.owner, .owner, .nobody])
    }

    // 3. Scenario validation.

    func testScenarioMistakesAreReportedAtTheirLine() throws {
        let head = "scenario x\n  user alice\n  as alice: select 1\n    expect ok\n"
        let cases: [(String, String, String)] = [
            (
                "  as alice: select * from public.profiles where id = '{bob}'\n    expect 0 rows\n", "s.scenario:5: ",
                "{bob}"
            ),
            ("  as alice: select 1\n    expect value {bob.email}\n", "s.scenario:6: ", "{bob.email}"),
            (
                "  as alice: select 1\n    from public.profiles where id = '{alice.id}'\n    expect ok\n",
                "s.scenario:6: ", "{alice.id}"
            ),
            (
                "  as alice: select 1; drop table public.posts\n    expect ok\n", "s.scenario:5: ",
                "one statement per step"
            ),
            ("  as alice:\n    select 1;\n    select 2\n    expect ok\n", "s.scenario:7: ", "one statement per step"),
            ("  as admin: commit\n    expect ok\n", "s.scenario:5: ", "transaction"),
            ("  as admin: rollback\n    expect ok\n", "s.scenario:5: ", "transaction"),
            ("  as admin: begin\n    expect ok\n", "s.scenario:5: ", "transaction"),
            ("  as admin: savepoint s1\n    expect ok\n", "s.scenario:5: ", "transaction"),
            ("  as admin: release savepoint s1\n    expect ok\n", "s.scenario:5: ", "transaction"),
            ("  as admin: /* sneaky */ START TRANSACTION\n    expect ok\n", "s.scenario:5: ", "transaction"),
        ]
        for (tail, prefix, contains) in cases {
            try assertError([("s.scenario", head + tail)], prefix, contains)
        }
        // Literals that merely look like braces are fine; so is a trailing semicolon.
        XCTAssertNil(
            try runError([
                (
                    "s.scenario",
                    head + "  as alice: select '{}'::jsonb, '{1,2}'::int[], '{\"a\": 1}'::jsonb;\n    expect 1 row\n"
                )
            ]))
    }

    // 4. Quoted identifiers in access files.

    func testQuotedTableNamesAreDeclarableAndRun() throws {
        let a = try AccessFile.parse(Self.weird, path: "a.rls")
        XCTAssertEqual(a.tables.map(\.name), ["we;ird\"t", "a#b c"])
        let report = try Harness.run(try HarnessLoader.parse([("a.rls", Self.weird)]), on: try target)
        XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))
        XCTAssertGreaterThanOrEqual(
            report.outcomes.count { $0.suite == "public.\"a#b c\"" && $0.status == .passed }, 12)
        XCTAssertGreaterThanOrEqual(
            report.outcomes.count { $0.suite == "public.\"we;ird\"\"t\"" && $0.status == .passed }, 12)
    }

    func testStrictSuggestionParses() throws {
        var options = HarnessOptions()
        options.strict = true
        let report = try Harness.run(try HarnessLoader.parse([("a.rls", Self.posts)]), options: options, on: try target)
        let messages = report.outcomes.filter { $0.suite == "coverage" }.compactMap(\.message)
        let suggestion = try XCTUnwrap(messages.first { $0.contains("a#b c") }, "\(messages)")
        let range = try XCTUnwrap(suggestion.range(of: #"add '([^']*)'"#, options: .regularExpression))
        let line = String(suggestion[range].dropFirst(5).dropLast())
        let parsed = try AccessFile.parse(line + "\n  owner owner_id\n  read owner\n  write owner\n", path: "s.rls")
        XCTAssertEqual(parsed.tables.map(\.name), ["a#b c"])
        XCTAssertTrue(messages.contains { $0.contains("add 'table public.\"we;ird\"\"t\"'") }, "\(messages)")
    }
}
