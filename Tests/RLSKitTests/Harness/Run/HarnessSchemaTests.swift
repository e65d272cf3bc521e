import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

final class HarnessSchemaTests: XCTestCase {
    func testMatrixAndScenariosPassOnOurSchemaAndNothingPersists() throws {
        let db = try OurSchema.makeDatabase(extra: notesSQL)
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try OurSchema.snapshot(conn)
        let report = try Harness.run(try Fixture.input(scenarios: true), on: db.connectionString)
        let failures = report.outcomes.filter { $0.status != .passed }
        XCTAssertEqual(failures.count, 0, TestReportWriter.render(report, format: .text))
        XCTAssertGreaterThan(report.outcomes.count, 100)
        for suite in ["public.profiles", "public.posts", "public.notes", "bucket avatars", "bucket post-images"] {
            XCTAssertGreaterThanOrEqual(report.outcomes.count { $0.suite == suite }, 12, suite)
        }
        XCTAssertEqual(try OurSchema.snapshot(conn), before)
        XCTAssertFalse(conn.inTransaction)
        XCTAssertTrue(report.notes.contains { $0.contains("public.notes") && $0.contains("select: A B anon") })
    }

    func testFailingRunLeavesNothingBehindEither() throws {
        let db = try OurSchema.makeDatabase(extra: notesSQL + "\nalter table public.notes disable row level security;")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let before = try OurSchema.snapshot(conn)
        let report = try Harness.run(try Fixture.input(scenarios: true), on: db.connectionString)
        XCTAssertFalse(report.passed)
        XCTAssertEqual(try OurSchema.snapshot(conn), before)
    }

    func testJobsGiveTheSameOutcomes() throws {
        let db = try OurSchema.makeDatabase(extra: notesSQL + "\ndrop policy \"own notes: delete\" on public.notes;")
        defer { TestServer.drop(db.name) }
        let input = try Fixture.input(scenarios: true)
        var three = HarnessOptions()
        three.jobs = 3
        let one = try Harness.run(input, on: db.connectionString)
        let many = try Harness.run(input, options: three, on: db.connectionString)
        func key(_ r: TestReport) -> [String] {
            r.outcomes.map { "\($0.suite)|\($0.actor ?? "")|\($0.name)|\($0.status)" }
        }
        XCTAssertEqual(key(one), key(many))
        XCTAssertEqual(one.failed, 1)
    }

    func testUncoveredTablesAreListedAndStrictFails() throws {
        let extra =
            "create table public.secrets (id uuid primary key, owner uuid); alter table public.secrets enable row level security;"
        let db = try OurSchema.makeDatabase(extra: notesSQL + extra)
        defer { TestServer.drop(db.name) }
        let relaxed = try Harness.run(try Fixture.input(), on: db.connectionString)
        XCTAssertTrue(relaxed.passed)
        XCTAssertTrue(relaxed.notes.contains { $0.hasPrefix("uncovered") && $0.contains("public.secrets") })
        var strict = HarnessOptions()
        strict.strict = true
        let failed = try Harness.run(try Fixture.input(), options: strict, on: db.connectionString)
        XCTAssertEqual(failed.outcomes.filter(\.isFailure).map(\.suite), ["coverage"])
    }

    /// A declared table nobody could test fails the run, unless the user allows it.
    func testTablesThatCannotBeSeededFailUnlessAllowed() throws {
        let extra = """
            create table public.parents (id int primary key, shape point not null);
            create table public.children (id int primary key generated always as identity,
              owner_id uuid not null references auth.users (id), parent_id int not null references public.parents (id));
            alter table public.children enable row level security;
            create table public.checked (owner_id uuid not null, code text not null check (code ~ '^[A-Z]{3}$'));
            alter table public.checked enable row level security;
            """
        let db = try OurSchema.makeDatabase(extra: notesSQL + extra)
        defer { TestServer.drop(db.name) }
        let access =
            notesAccess + "\ntable children\n  owner owner_id\n  read owner\n  write owner\n"
            + "table checked\n  owner owner_id\n  read owner\n  write owner\n"
        let report = try Harness.run(try Fixture.input(access), on: db.connectionString)
        XCTAssertFalse(report.passed)
        XCTAssertEqual(Set(report.outcomes.filter(\.isFailure).map(\.suite)), ["public.children", "public.checked"])
        let children = report.outcomes.filter { $0.suite == "public.children" }
        XCTAssertEqual(children.map(\.status), [.error])
        XCTAssertTrue(
            children[0].message!.contains("needs a row in public.parents, whose column shape of type point"),
            children[0].message!)
        XCTAssertTrue(children[0].message!.hasSuffix("(or --allow-untested to skip it)"), children[0].message!)
        let checked = report.outcomes.filter { $0.suite == "public.checked" }
        XCTAssertEqual(checked.map(\.status), [.error])
        XCTAssertTrue(checked[0].message!.contains("check constraint"), checked[0].message!)
        XCTAssertTrue(report.notes.contains { $0.contains("public.children") && $0.contains("not covered") })

        var allow = HarnessOptions()
        allow.allowUntested = true
        let allowed = try Harness.run(try Fixture.input(access), options: allow, on: db.connectionString)
        XCTAssertTrue(allowed.passed)
        XCTAssertEqual(
            allowed.outcomes.filter { $0.status == .skipped }.map(\.suite).sorted(),
            ["public.checked", "public.children"])
        // --strict wins over --allow-untested.
        allow.strict = true
        let s = try Harness.run(try Fixture.input(access), options: allow, on: db.connectionString)
        XCTAssertEqual(Set(s.outcomes.filter(\.isFailure).map(\.suite)), ["public.children", "public.checked"])
    }

    /// A declared bucket whose objects cannot be seeded fails too.
    func testBucketThatCannotBeSeededFails() throws {
        let report = try Fixture.run(breakage: "alter table storage.objects add column required_tag text not null;")
        let avatars = report.outcomes.filter { $0.suite == "bucket avatars" }
        XCTAssertEqual(avatars.map(\.status), [.error], "\(avatars)")
        XCTAssertTrue(
            avatars.first?.message?.hasPrefix("not covered: seeding rows for the test users failed") == true,
            "\(avatars)")
        XCTAssertFalse(report.passed)
    }

    func testSeedFixtureMakesATableCoverable() throws {
        let extra = """
            create table public.checked (owner_id uuid not null, code text not null check (code ~ '^[A-Z]{3}$'));
            alter table public.checked enable row level security;
            grant select on public.checked to authenticated;
            grant all on public.checked to service_role;
            create policy r on public.checked for select to authenticated using (owner_id = (select auth.uid()));
            """
        let db = try OurSchema.makeDatabase(extra: notesSQL + extra)
        defer { TestServer.drop(db.name) }
        let access =
            notesAccess + "\ntable checked\n  owner owner_id\n  read owner\n  write nobody\n  seed code = 'ABC'\n"
        let report = try Harness.run(try Fixture.input(access), on: db.connectionString)
        XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))
        XCTAssertEqual(report.outcomes.count { $0.suite == "public.checked" }, 15)
    }

    func testRefusesWhenANetworkBackendExists() throws {
        let http = """
            create type extensions.http_request as (method text, uri text);
            create function extensions.http(extensions.http_request) returns int language sql as 'select 200';
            """
        let db = try OurSchema.makeDatabase(extra: notesSQL + http)
        defer { TestServer.drop(db.name) }
        XCTAssertThrowsError(try Harness.run(try Fixture.input(), on: db.connectionString)) { e in
            XCTAssertTrue("\(e)".contains("extensions.http") && "\(e)".contains("--allow-side-effects"), "\(e)")
        }
        var allow = HarnessOptions()
        allow.allowSideEffects = true
        XCTAssertTrue(try Harness.run(try Fixture.input(), options: allow, on: db.connectionString).passed)
    }

    func testMissingTableOrBucketIsAnInputErrorWithLocation() throws {
        let db = try OurSchema.makeDatabase()
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse("table public.nope\n  owner id\n  read anyone\n  write owner\n", path: "a.rls")
        ]
        XCTAssertThrowsError(try Harness.run(input, on: db.connectionString)) { e in
            XCTAssertEqual(
                (e as? InputError)?.description,
                "a.rls:1: table public.nope does not exist in the database: fix the name or apply the migrations first")
        }
        input.access = [try AccessFile.parse("\nbucket photos\n  read owner\n  write own-folder\n", path: "b.rls")]
        XCTAssertThrowsError(try Harness.run(input, on: db.connectionString)) { e in
            XCTAssertTrue(
                (e as? InputError)?.description.hasPrefix("b.rls:2: bucket photos does not exist") ?? false, "\(e)")
        }
        input.access = [
            try AccessFile.parse("table profiles\n  owner user_id\n  read anyone\n  write owner\n", path: "c.rls")
        ]
        XCTAssertThrowsError(try Harness.run(input, on: db.connectionString)) { e in
            XCTAssertTrue(
                (e as? InputError)?.description.hasPrefix("c.rls:2: table public.profiles has no column 'user_id'")
                    ?? false, "\(e)")
        }
    }
}
