import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// How a unit's sign-up and seeding reach the server: together in one round trip, and apart
/// only when that fails, so that the report still names the step that failed.
final class UnitRunnerTests: XCTestCase {
    /// A diary whose sign-up trigger notes statement_timestamp(), which the server sets once
    /// per message from the client.
    static let schema = """
        create function public.note_signup() returns trigger language plpgsql security definer set search_path = '' as $$
          begin perform set_config('rlskit_test.signup_at', statement_timestamp()::text, true); return new; end $$;
        create trigger note_signup after insert on auth.users for each row execute function public.note_signup();
        create table public.diary (
          id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id),
          entry text not null
        );
        alter table public.diary enable row level security;
        grant select, insert, update, delete on public.diary to authenticated;
        grant all on public.diary to service_role;
        create policy own on public.diary for all to authenticated
          using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
        """

    static func run(seed: String, extra: String = "") throws -> TestReport {
        let db = try StandIn.makeDatabase(prefix: "unitrun")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(schema + "\n" + extra)
        let access = "table public.diary\n  owner user_id\n  read owner\n  write owner\n  seed entry = \(seed)\n"
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "diary.rls")]
        let report = try Harness.run(input, on: db.connectionString)
        XCTAssertEqual(try db.conn.query("select 1 from public.diary").rows.count, 0, "nothing persists")
        return report
    }

    /// The seeded rows (n 1 and 2) get an entry only when they arrive in the sign-up's message;
    /// the checks' own rows (n from 1000) always do.
    func testSignUpAndSeedingAreOneMessage() throws {
        let report = try Self.run(
            seed:
                "case when {n} >= 1000 or current_setting('rlskit_test.signup_at', true) = statement_timestamp()::text then 'entry {n}' end"
        )
        XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))
        XCTAssertEqual(report.outcomes.count { $0.suite == "public.diary" }, 16)
    }

    func testFailedSeedingIsStillReportedAsSeeding() throws {
        let report = try Self.run(seed: "case when {n} >= 1000 then 'entry' end")
        XCTAssertEqual(report.outcomes.map(\.name), ["not covered"])
        let message = report.outcomes[0].message ?? ""
        XCTAssertTrue(message.hasPrefix("not covered: seeding rows for the test users failed: "), message)
        XCTAssertTrue(message.contains("\"entry\""), message)
    }

    func testFailedSignUpIsStillReportedAsSignUp() throws {
        let refuse = """
            create function public.refuse_signup() returns trigger language plpgsql security definer set search_path = '' as $$
              begin raise exception 'sign-ups are closed'; end $$;
            create trigger refuse_signup before insert on auth.users for each row execute function public.refuse_signup();
            """
        let report = try Self.run(seed: "'entry'", extra: refuse)
        XCTAssertEqual(report.outcomes.map(\.name), ["sign up the test users"])
        XCTAssertEqual(report.outcomes[0].status, .error)
        XCTAssertEqual(
            report.outcomes[0].message,
            "signing up the test users failed in trigger refuse_signup (before insert on auth.users), function"
                + " public.refuse_signup(): sign-ups are closed (P0001) — on Supabase every sign-up fails the same way"
                + " (\"Database error saving new user\"): the function raises this itself; make it let a plain email"
                + " sign-up through")
    }
}
