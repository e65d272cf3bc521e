import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A sign-up trigger that fails fails every unit the same way: the run says so once, naming
/// the trigger, its function, the server's message and what to do; every other unit says it
/// could not run because of it.
final class SignUpFailureTests: XCTestCase {
    static let tables = ["notes", "todos", "files"]

    static func run(trigger body: String, options: String = "") throws -> TestReport {
        let db = try StandIn.makeDatabase(prefix: "signupfail")
        defer { TestServer.drop(db.name) }
        var sql = """
            create table public.profiles (id uuid primary key);
            create function public.handle_new_user() returns trigger language plpgsql security definer \(options) as $$
              begin \(body) return new; end $$;
            create trigger on_auth_user_created after insert on auth.users
              for each row execute function public.handle_new_user();

            """
        var access = ""
        for t in tables {
            sql += """
                create table public.\(t) (id bigint generated always as identity primary key,
                  user_id uuid not null references auth.users (id));
                alter table public.\(t) enable row level security;
                grant select, insert, update, delete on public.\(t) to authenticated;
                grant all on public.\(t) to service_role;
                create policy own on public.\(t) for all to authenticated
                  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

                """
            access += "table public.\(t)\n  owner user_id\n  read owner\n  write owner\n\n"
        }
        _ = try db.conn.runScript(sql)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "access.rls")]
        return try Harness.run(input, on: db.connectionString)
    }

    /// The one failure, and the units that could not run because of it.
    func once(_ report: TestReport) throws -> (failure: TestOutcome, others: [TestOutcome]) {
        let text = TestReportWriter.render(report, format: .text)
        let failed = report.outcomes.filter(\.isFailure)
        XCTAssertEqual(failed.map(\.name), ["sign up the test users"], text)
        let failure = try XCTUnwrap(failed.first, text)
        let others = report.outcomes.filter { $0.suite != failure.suite }
        XCTAssertEqual(Set(others.map(\.suite)).count, Self.tables.count - 1, text)
        for o in others {
            XCTAssertEqual(o.status, .skipped, text)
            XCTAssertEqual(
                o.message,
                "not covered: could not run, signing up the test users failed (see \(failure.suite) · sign up the test users)"
            )
        }
        XCTAssertEqual(report.outcomes.count, Self.tables.count, text)
        return (failure, others)
    }

    func testRaisingTriggerIsNamedOnce() throws {
        let r = try Self.run(trigger: "raise exception 'sign-ups are closed';")
        let (failure, _) = try once(r)
        XCTAssertEqual(
            failure.message,
            "signing up the test users failed in trigger on_auth_user_created (after insert on auth.users),"
                + " function public.handle_new_user(): sign-ups are closed (P0001) — on Supabase every sign-up fails"
                + " the same way (\"Database error saving new user\"): the function raises this itself; make it let a"
                + " plain email sign-up through")
    }

    /// Unqualified `profiles`: GoTrue's search_path is `auth`, so the name is not found.
    func testUnqualifiedTableNamesTheSearchPath() throws {
        let r = try Self.run(trigger: "insert into profiles (id) values (new.id);")
        let m = try once(r).failure.message ?? ""
        XCTAssertTrue(
            m.hasPrefix(
                "signing up the test users failed in trigger on_auth_user_created (after insert on auth.users), function public.handle_new_user(): relation \"profiles\" does not exist (42P01)"
            ), m)
        XCTAssertTrue(m.contains("with search_path auth, so qualify the names"), m)
    }

    /// A qualified table that no migration created: the advice is to create it, not to qualify.
    func testMissingTableSaysItDoesNotExist() throws {
        let r = try Self.run(
            trigger: "insert into public.accounts (id) values (new.id);", options: "set search_path = ''")
        let m = try once(r).failure.message ?? ""
        XCTAssertTrue(m.contains("relation \"public.accounts\" does not exist (42P01)"), m)
        XCTAssertTrue(
            m.hasSuffix(
                "public.accounts does not exist when users sign up; create it in a migration before the trigger's"), m)
        XCTAssertFalse(m.contains("qualify"), m)
    }

    /// The same trigger with a qualified, existing table: every unit runs.
    func testWorkingTriggerRunsEveryUnit() throws {
        let r = try Self.run(
            trigger: "insert into public.profiles (id) values (new.id);", options: "set search_path = ''")
        XCTAssertTrue(r.passed, TestReportWriter.render(r, format: .text))
        XCTAssertFalse(r.outcomes.contains { $0.name == "sign up the test users" || $0.name == "not covered" })
        XCTAssertEqual(Set(r.outcomes.map(\.suite)), Set(Self.tables.map { "public.\($0)" }))
    }
}
