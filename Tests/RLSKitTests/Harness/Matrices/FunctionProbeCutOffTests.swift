import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A call that does not end within the probe's 5 s is cut off for real, whatever it catches:
/// a cancel first, then its backend is terminated; the call is "not covered" and the probe goes
/// on with the others, on a new session where the old one was ended.
final class FunctionProbeCutOffTests: XCTestCase {
    /// SECURITY DEFINER, callable by anon only; `body` is PL/pgSQL.
    static func function(_ name: String, _ body: String) -> String {
        """
        create function public.\(name)() returns void language plpgsql security definer set search_path = '' as $$
        begin
        \(body)
        end $$;
        revoke execute on function public.\(name)() from public;
        grant execute on function public.\(name)() to anon;
        """
    }

    static let schema = [
        // The review's example: a loop that swallows every cancel (and statement_timeout).
        function(
            "a_catches_cancel",
            "loop begin perform pg_catalog.pg_sleep(0.05); exception when query_canceled then null; end; end loop;"),
        // Catches the cancel once, then sleeps on: only the termination ends it.
        function(
            "b_sleeps_after_cancel",
            "perform pg_catalog.pg_sleep(60); exception when query_canceled then perform pg_catalog.pg_sleep(60);"),
        // `others` does not catch a cancel: the cancel alone ends it.
        function(
            "c_catches_others",
            "loop begin perform pg_catalog.pg_sleep(0.05); exception when others then null; end; end loop;"),
        // Ends after the cancel, within the grace: past the deadline, still no verdict.
        function(
            "d_returns_after_cancel", "perform pg_catalog.pg_sleep(60); exception when query_canceled then return;"),
        // Called after the others, on whatever session is left.
        function("e_after", "perform 1;"),
    ].joined(separator: "\n")

    func testEveryCallPastTheDeadlineIsCutOffAndTheOthersGoOn() throws {
        let db = try StandIn.makeDatabase(prefix: "cutoff")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        _ = try conn.runScript(Self.schema)
        let started = Date()
        let outcomes = try FunctionProbe.run(conn, exposedSchemas: ["public"])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(
            outcomes.map(\.sentence),
            [
                "public.a_catches_cancel() as anon: not covered: did not end within 5 s (cut off)",
                "public.b_sleeps_after_cancel() as anon: not covered: did not end within 5 s (cut off)",
                "public.c_catches_others() as anon: not covered: did not end within 5 s (cut off)",
                "public.d_returns_after_cancel() as anon: not covered: did not end within 5 s (cut off)",
                "public.e_after() as anon: did nothing visible",
            ])
        // Four cut-offs of 5 s (two with the 1 s grace), not a hang; the connection still works.
        XCTAssertLessThan(seconds, 35)
        XCTAssertTrue(conn.isAlive)
        // Nothing is left running on the server.
        let monitor = try PostgresConnection(db.connectionString)
        defer { monitor.close() }
        var left = -1
        for _ in 0..<100 {
            left = try monitor.query(
                "select count(*)::int from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query ~ '(a_catches|b_sleeps|c_catches|d_returns)'"
            ).rows[0].decode(0)
            if left == 0 { break }
            usleep(50_000)
        }
        XCTAssertEqual(left, 0)
    }

    /// In `rlskit test`, the unit's transaction goes with the terminated session: it is set up
    /// again, so a later call still gets A's seeded row and still fails for handing it over.
    func testTheHarnessSetsTheUnitUpAgainAfterATermination() throws {
        let db = try OurSchema.makeDatabase(
            extra: """
                create table public.secrets (
                  id bigint generated always as identity primary key,
                  user_id uuid not null references auth.users (id) on delete cascade, body text not null);
                alter table public.secrets enable row level security;
                grant select, insert, update, delete on public.secrets to authenticated;
                grant all on public.secrets to service_role;
                create policy own on public.secrets for all to authenticated
                  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
                \(Self.function("a_catches_cancel", "loop begin perform pg_catalog.pg_sleep(0.05); exception when query_canceled then null; end; end loop;"))
                create function public.secrets_of(p_user_id uuid) returns setof public.secrets language sql stable
                  security definer set search_path = '' as $$ select * from public.secrets s where s.user_id = p_user_id $$;
                """)
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse("table public.secrets\n  owner user_id\n  read owner\n  write owner\n", path: "s.rls")
        ]
        let report = try Harness.run(input, on: db.connectionString)
        let calls = report.outcomes.filter { $0.suite == FunctionProbeRequest.suite }
        let cut = try XCTUnwrap(calls.first { $0.name == "public.a_catches_cancel() called as anon" })
        XCTAssertEqual(cut.status, .skipped)
        XCTAssertEqual(
            cut.message,
            "not covered: public.a_catches_cancel() as anon: did not end within 5 s (cut off) (not declared)")
        for caller in ["anon", "B"] {
            let o = calls.first { $0.name == "public.secrets_of(uuid) called as \(caller)" }
            XCTAssertEqual(o?.status, .failed, "\(caller): \(o?.message ?? "no outcome")")
        }
        XCTAssertEqual(calls.first { $0.name == "public.secrets_of(uuid) called as A" }?.status, .passed)
        let conn = try PostgresConnection(db.connectionString)
        defer { conn.close() }
        XCTAssertEqual(try conn.query("select count(*) from public.secrets").rows.first?.decode(0) as Int64?, 0)
    }

    /// Schema names with `\`, `"`, `,` and braces reach the catalog query as themselves.
    func testSchemaNamesAreBoundAsAnArray() throws {
        let db = try StandIn.makeDatabase(prefix: "probeschemas")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let names = ["a\\b", "q\"t", "x,y", "{z}", "e\\", "p ."]
        for n in names {
            let s = try conn.escapeIdentifier(n)
            _ = try conn.runScript(
                """
                create schema \(s);
                create function \(s).f() returns void language sql security definer set search_path = '' as $$ select $$;
                grant usage on schema \(s) to anon;
                revoke execute on function \(s).f() from public;
                grant execute on function \(s).f() to anon;
                """)
        }
        let found = try FunctionProbe.candidates(conn, exposedSchemas: names).map(\.schema)
        XCTAssertEqual(Set(found), Set(names))
        XCTAssertEqual(try FunctionProbe.candidates(conn, exposedSchemas: ["a\\b"]).map(\.schema), ["a\\b"])
        XCTAssertEqual(try FunctionProbe.candidates(conn, exposedSchemas: ["ab"]).count, 0)
    }
}
