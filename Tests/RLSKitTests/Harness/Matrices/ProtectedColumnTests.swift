import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// An own-row UPDATE policy must not let users set their own is_admin, plan or balance:
/// whatever protects the column (a column privilege, a trigger that raises or resets it).
final class ProtectedColumnTests: XCTestCase {
    static let schema = """
        create table public.profiles (
          id uuid primary key references auth.users (id),
          full_name text not null default '',
          is_admin boolean not null default false,
          plan text not null default 'free',
          balance numeric(10,2) not null default 0
        );
        alter table public.profiles enable row level security;
        grant select, delete on public.profiles to authenticated;
        grant insert (id, full_name), update (full_name, plan, balance) on public.profiles to authenticated;
        grant all on public.profiles to service_role;
        create policy own on public.profiles for all to authenticated
          using (id = (select auth.uid())) with check (id = (select auth.uid()));
        -- plan: a trigger refuses changes by API callers; balance: a trigger puts it back.
        create function public.guard_profile() returns trigger language plpgsql as $$
        begin
          if current_user in ('anon', 'authenticated') then
            if new.plan is distinct from old.plan then raise exception 'plan is managed by billing'; end if;
            new.balance := old.balance;
          end if;
          return new;
        end $$;
        create trigger guard before update on public.profiles for each row execute function public.guard_profile();
        """

    static let access = """
        table public.profiles
          owner id
          read owner
          write owner
          protect is_admin, plan, balance
        """

    func testEachWayOfProtectingCountsAndEachHoleIsFound() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.profiles: A changes is_admin on own row", "public.profiles: A changes plan on own row",
                "public.profiles: A changes balance on own row", "public.profiles: A inserts own row with is_admin set",
            ],
            bugs: [
                .init(
                    what: "every column updatable",
                    sql: "grant update on public.profiles to authenticated;",
                    fails: ["public.profiles: A changes is_admin on own row"]),
                .init(
                    what: "the trigger forgets plan",
                    sql:
                        "create or replace function public.guard_profile() returns trigger language plpgsql as $$ begin new.balance := old.balance; return new; end $$;",
                    fails: ["public.profiles: A changes plan on own row"]),
                .init(
                    what: "the trigger no longer resets balance",
                    sql: "drop trigger guard on public.profiles;",
                    fails: ["public.profiles: A changes balance on own row"]),
                .init(
                    what: "is_admin insertable",
                    sql: "grant insert on public.profiles to authenticated;",
                    fails: ["public.profiles: A inserts own row with is_admin set"]),
            ])
    }

    func testProtectMistakesAreOneLine() throws {
        XCTAssertThrowsError(
            try AccessFile.parse("table t\n  owner id\n  read owner\n  write owner\n  protect\n", path: "p.rls")
        ) {
            XCTAssertTrue("\($0)".hasPrefix("p.rls:5: 'protect' lists columns"), "\($0)")
        }
        let db = try StandIn.makeDatabase(prefix: "protect")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema)
        for (line, wanted) in [
            ("protect colour", "p.rls:5: table public.profiles has no column 'colour' to protect"),
            ("protect id", "p.rls:5: column id is the table's owner or group"),
        ] {
            var input = HarnessInput()
            input.access = [
                try AccessFile.parse(
                    Self.access.replacingOccurrences(of: "protect is_admin, plan, balance", with: line), path: "p.rls")
            ]
            XCTAssertThrowsError(try Harness.run(input, options: HarnessOptions(), on: db.connectionString)) {
                XCTAssertTrue("\($0)".hasPrefix(wanted), "\($0)")
            }
        }
    }
}
