import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Every form of a check's failure message says what was expected and what happened, each
/// labelled, and a count query's one value reads as a count ("not visible (a count of 0)"),
/// never as a row ("got 1 row (0)" read as the opposite of what happened).
final class CheckMessageTests: XCTestCase {
    /// Each table breaks the declared intent one way: `leaky` lets everyone in, `locked` lets
    /// its owner only insert, `ok` keeps rows to their owners but stores a protected column.
    static let schema = """
        create table public.leaky (id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id), body text not null default 'x');
        create table public.locked (id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id), body text not null default 'x');
        create table public.ok (id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id), body text not null default 'x', plan text);
        do $$ declare t text; begin foreach t in array array['leaky', 'locked', 'ok'] loop
          execute format('alter table public.%I enable row level security', t);
          execute format('grant select, insert, update, delete on public.%I to authenticated', t);
          execute format('grant all on public.%I to service_role', t);
        end loop; end $$;
        create policy everyone on public.leaky for all to authenticated using (true) with check (true);
        -- Reads nothing, writes its own: A's own row is locked out of select, update, delete.
        create policy own_insert on public.locked for insert to authenticated with check (user_id = (select auth.uid()));
        create policy own on public.ok for all to authenticated
          using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
        """

    static let access = """
        table public.leaky
          owner user_id
          read owner
          write owner

        table public.locked
          owner user_id
          read owner
          write owner

        table public.ok
          owner user_id
          read owner
          write owner
          protect plan

        """

    static let scenario = """
        scenario counts read as counts
          user alice
          as alice: select count(*) from public.ok
            expect value 2

        """

    nonisolated(unsafe) static var cached: TestReport?

    func report() throws -> TestReport {
        if let r = Self.cached { return r }
        let db = try StandIn.makeDatabase(prefix: "messages")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(Self.access, path: "access.rls")]
        input.scenarios = [("counts.scenario", try ScenarioFile.parse(Self.scenario, path: "counts.scenario"))]
        let r = try Harness.run(input, on: db.connectionString)
        Self.cached = r
        return r
    }

    func message(_ suite: String, _ name: String) throws -> String {
        let o = try XCTUnwrap(try report().outcomes.first { $0.suite == suite && $0.name == name }, name)
        XCTAssertTrue(o.isFailure, "\(suite) · \(name) passed")
        return o.message ?? ""
    }

    /// The issue's own case: A's row is there but not visible to A.
    func testLockedOutReadSaysNotVisibleWithItsCount() throws {
        let m = try message("public.locked", "A reads own row")
        XCTAssertTrue(
            m.hasPrefix(
                "public.locked · select · as A: expected: the row visible (a count of at least 1); got: the row not visible (a count of 0)"
            ), m)
        XCTAssertFalse(m.contains("1 row"), m)
    }

    func testLeakingReadSaysVisibleWithItsCount() throws {
        let m = try message("public.leaky", "A reads B's row")
        XCTAssertTrue(
            m.hasPrefix(
                "public.leaky · select · as A: expected: the row not visible (a count of 0, or denied); got: the row visible (a count of 1)"
            ), m)
    }

    func testLockedOutWriteSaysWhatWasExpectedAndWhatHappened() throws {
        let m = try message("public.locked", "A deletes own row")
        XCTAssertTrue(
            m.hasPrefix(
                "public.locked · delete · as A: expected: the write goes through (at least 1 row); got: 0 rows affected"
            ),
            m)
        let leak = try message("public.leaky", "A deletes B's row")
        XCTAssertTrue(leak.contains("expected: nothing written ("), leak)
        XCTAssertTrue(leak.contains("; got: 1 row affected"), leak)
    }

    func testScenarioValueReadsAsAValue() throws {
        let m = try message(
            "counts.scenario: counts read as counts", "counts read as counts: select count(*) from public.ok")
        XCTAssertTrue(m.hasSuffix("· select · as alice: expected: value 2; got: value 0"), m)
    }

    /// `public.ok` keeps its rows to their owners but lets A set `plan`, which it protects.
    func testProtectedColumnSaysTheValueWasStored() throws {
        let m = try message("public.ok", "A changes plan on own row")
        XCTAssertTrue(
            m.hasPrefix(
                "public.ok · update · as A: expected: the value not stored (refused, reset or denied); got: the value stored (1 row holds it)"
            ), m)
    }

    /// Every failure of the run, whatever its kind, has the one labelled form.
    func testEveryFailureHasTheLabelledForm() throws {
        let all = try report()
        let failed = all.outcomes.filter(\.isFailure)
        XCTAssertGreaterThanOrEqual(failed.count, 5, TestReportWriter.render(all, format: .text))
        for o in failed {
            let m = o.message ?? ""
            XCTAssertTrue(m.contains(": expected: ") && m.contains("; got: "), m)
            XCTAssertFalse(m.contains(", got "), m)
        }
        XCTAssertEqual(
            failed.filter { $0.suite == "public.ok" }.map(\.name),
            ["A inserts own row with plan set", "A changes plan on own row"], "only the protected column fails there")
    }

    /// What a one-value result means to each expectation, one by one.
    func testOneValueIsDescribedByWhatItCounts() {
        let zero = Observed.rows([["0"]])
        let two = Observed.rows([["2"]])
        XCTAssertEqual(Expectation.visible.describe(zero), "the row not visible (a count of 0)")
        XCTAssertEqual(Expectation.hidden.describe(two), "the row visible (a count of 2)")
        XCTAssertEqual(Expectation.notStored.describe(Observed.rows([["1"]])), "the value stored (1 row holds it)")
        XCTAssertEqual(Expectation.notStored.describe(zero), "the value not stored (no row holds it)")
        XCTAssertEqual(Expectation.value("3").describe(two), "value 2")
        XCTAssertEqual(Expectation.isTrue.describe(Observed.rows([["f"]])), "false")
        XCTAssertEqual(Expectation.rowCount(2).describe(two), "1 row: 2")
        XCTAssertEqual(Expectation.allowed.describe(.affected(0)), "0 rows affected")
    }
}
