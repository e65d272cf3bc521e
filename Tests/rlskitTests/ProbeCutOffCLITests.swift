import Foundation
import Postgres
import TestSupport
import XCTest

/// A probed function that swallows every cancel must not outlive rlskit: killed mid-call, its
/// backend ends once the server sees the connection closed.
final class ProbeCutOffCLITests: ScratchTestCase {
    func testAKilledRunLeavesNoCallRunning() throws {
        let db = try OurSchema.makeDatabase(
            extra: """
                create table public.secrets (
                  id bigint generated always as identity primary key,
                  user_id uuid not null references auth.users (id) on delete cascade, body text not null);
                alter table public.secrets enable row level security;
                grant all on public.secrets to authenticated, service_role;
                create policy own on public.secrets for all to authenticated using ((select auth.uid()) = user_id);
                create function public.spins_on() returns void language plpgsql security definer set search_path = '' as $$
                begin
                  loop begin perform pg_catalog.pg_sleep(0.05); exception when query_canceled then null; end; end loop;
                end $$;
                """)
        dbs.append(db.name)
        let dir = try folder(["s.rls": "table public.secrets\n  owner user_id\n  read owner\n  write owner\n"])
        let monitor = try PostgresConnection(db.connectionString)
        defer { monitor.close() }
        func running() throws -> Int {
            try monitor.query(
                "select count(*)::int from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%spins_on%'"
            ).rows[0].decode(0)
        }
        let (p, _, _) = try CLI.start(["test", "--database-url", db.connectionString.raw, dir + "/s.rls"])
        var seen = false
        for _ in 0..<1000 where !seen {
            seen = try running() > 0
            if !seen { usleep(10_000) }
        }
        XCTAssertTrue(seen, "the probe never called the function")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let killed = Date()
        var left = 1
        while left > 0, Date().timeIntervalSince(killed) < 10 {
            left = try running()
            if left > 0 { usleep(50_000) }
        }
        XCTAssertEqual(left, 0, "the call still runs \(Date().timeIntervalSince(killed)) s after rlskit died")
    }
}
