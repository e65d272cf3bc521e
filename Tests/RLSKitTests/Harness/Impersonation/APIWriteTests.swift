import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Writes as supabase-js sends them: with `.select()` (RETURNING), as upserts, and refused by triggers.
final class APIWriteTests: XCTestCase {
    /// Documents readable through a readers table that an AFTER INSERT trigger fills: the new row
    /// is checked against the SELECT policy before that trigger runs.
    static func docsSQL(read: String) -> String {
        """
        create schema if not exists private;
        create table public.docs (
          id       bigint generated always as identity primary key,
          owner_id uuid not null references auth.users (id) on delete cascade,
          title    text not null
        );
        create table private.doc_readers (doc_id bigint references public.docs on delete cascade, user_id uuid);
        create function private.add_reader() returns trigger language plpgsql security definer set search_path = '' as $$
          begin insert into private.doc_readers values (new.id, new.owner_id); return new; end $$;
        create trigger add_reader after insert on public.docs for each row execute function private.add_reader();
        create function private.can_read(d bigint) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from private.doc_readers r where r.doc_id = d and r.user_id = auth.uid()) $$;
        alter table public.docs enable row level security;
        grant select, insert, update, delete on public.docs to authenticated;
        grant all on public.docs to service_role;
        create policy "docs: read" on public.docs for select to authenticated using (\(read));
        create policy "docs: insert" on public.docs for insert to authenticated with check ((select auth.uid()) = owner_id);
        create policy "docs: update" on public.docs for update to authenticated using ((select auth.uid()) = owner_id);
        create policy "docs: delete" on public.docs for delete to authenticated using ((select auth.uid()) = owner_id);
        """
    }

    static let docsAccess = "table public.docs\n  owner owner_id\n  read owner\n  write owner\n"

    func testAnInsertWhoseRowCannotBeReadBackIsItsOwnResult() throws {
        let bad = try runAPI(Self.docsSQL(read: "private.can_read(id)"), access: Self.docsAccess)
        let failed = bad.outcomes.filter(\.isFailure)
        XCTAssertEqual(failed.map(\.name), ["A inserts own row and reads it back"], failures(bad))
        let msg = failed.first?.message ?? ""
        XCTAssertTrue(
            msg.hasPrefix(
                "public.docs · insert · as A: the insert succeeds but the new row cannot be read back (insert(...).select() fails)"
            ), msg)
        XCTAssertTrue(msg.contains("new row violates row-level security policy"), msg)
        XCTAssertEqual(bad.outcomes.first { $0.name == "A inserts own row" }?.status, .passed)

        let good = try runAPI(
            Self.docsSQL(read: "(select auth.uid()) = owner_id or private.can_read(id)"), access: Self.docsAccess)
        XCTAssertTrue(good.passed, failures(good))
        XCTAssertEqual(good.outcomes.first { $0.name == "A inserts own row and reads it back" }?.status, .passed)
    }

    func testAReadBackIsLeftOutWhenThePlainWriteAlreadyFails() throws {
        let noInsert =
            Self.docsSQL(read: "(select auth.uid()) = owner_id") + "\nrevoke insert on public.docs from authenticated;"
        let r = try runAPI(noInsert, access: Self.docsAccess)
        XCTAssertEqual(r.outcomes.filter(\.isFailure).map(\.name), ["A inserts own row"], failures(r))
        XCTAssertNil(r.outcomes.first { $0.name == "A inserts own row and reads it back" })
    }

    /// Pages with a slug the client sends: upserts target it.
    static func pagesSQL(
        _ policies: String, grants: String = "grant select, insert, update, delete on public.pages to authenticated;"
    )
        -> String
    {
        """
        create table public.pages (
          id      bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id) on delete cascade,
          slug    text not null unique,
          body    text
        );
        alter table public.pages enable row level security;
        \(grants)
        grant select on public.pages to anon;
        grant all on public.pages to service_role;
        create policy "pages: read" on public.pages for select using (true);
        create policy "pages: insert" on public.pages for insert to authenticated with check ((select auth.uid()) = user_id);
        create policy "pages: delete" on public.pages for delete to authenticated using ((select auth.uid()) = user_id);
        \(policies)
        """
    }

    static let pagesAccess = "table public.pages\n  owner user_id\n  read anyone\n  write owner\n"
    static let ownUpdate =
        "create policy \"pages: update\" on public.pages for update to authenticated using ((select auth.uid()) = user_id);"

    func testUpsertsOnAKeyTheClientSends() throws {
        let good = try runAPI(Self.pagesSQL(Self.ownUpdate), access: Self.pagesAccess)
        XCTAssertTrue(good.passed, failures(good))
        for name in ["A upserts own row", "A upserts onto B's row"] {
            let o = try XCTUnwrap(good.outcomes.first { $0.name == name }, name)
            XCTAssertEqual(o.status, .passed)
            XCTAssertTrue(o.sql?.contains("on conflict (slug) do update set") == true, o.sql ?? "")
        }

        // Update open to any row: the upsert takes B's page over.
        let takeover = try runAPI(
            Self.pagesSQL(
                "create policy \"pages: update\" on public.pages for update to authenticated using (true) with check ((select auth.uid()) = user_id);"
            ), access: Self.pagesAccess)
        let o = try XCTUnwrap(takeover.outcomes.first { $0.name == "A upserts onto B's row" })
        XCTAssertEqual(o.status, .failed)
        XCTAssertTrue(
            o.message?.hasPrefix("public.pages · insert · as A: expected: nothing written") == true, o.message ?? "")

        // UPDATE granted on body only: a plain update works, the upsert (which sets every sent column) does not.
        let columns = try runAPI(
            Self.pagesSQL(
                Self.ownUpdate,
                grants:
                    "grant select, insert, delete on public.pages to authenticated; grant update (body) on public.pages to authenticated;"
            ), access: Self.pagesAccess)
        XCTAssertEqual(columns.outcomes.first { $0.name == "A updates own row" }?.status, .passed)
        XCTAssertEqual(columns.outcomes.filter(\.isFailure).map(\.name), ["A upserts own row"], failures(columns))

        // Declared insert only: the own upsert must not go through either.
        let insertOnly = try runAPI(
            Self.pagesSQL(Self.ownUpdate), access: Self.pagesAccess + "  update nobody\n")
        XCTAssertTrue(
            insertOnly.outcomes.filter(\.isFailure).map(\.name).contains("A upserts own row"), failures(insertOnly))
    }

    func testUpsertsHitTheirRowWhenSignUpMadeTheUsersRows() throws {
        let signUpPage = """
            create function public.first_page() returns trigger language plpgsql security definer set search_path = '' as $$
              begin insert into public.pages (user_id, slug) values (new.id, 'home-' || new.id); return new; end $$;
            create trigger first_page after insert on auth.users for each row execute function public.first_page();
            """
        let r = try runAPI(Self.pagesSQL(Self.ownUpdate) + signUpPage, access: Self.pagesAccess)
        XCTAssertTrue(r.passed, failures(r))
        XCTAssertEqual(r.outcomes.filter { $0.name.contains("upserts") }.count, 3)
        let insertOnly = try runAPI(
            Self.pagesSQL(Self.ownUpdate) + signUpPage, access: Self.pagesAccess + "  update nobody\n")
        XCTAssertTrue(
            insertOnly.outcomes.filter(\.isFailure).map(\.name).contains("A upserts own row"), failures(insertOnly))
    }

    func testNoUpsertWithoutAKeyTheClientSends() throws {
        let r = try runAPI(Self.docsSQL(read: "(select auth.uid()) = owner_id"), access: Self.docsAccess)
        XCTAssertTrue(r.passed, failures(r))
        XCTAssertFalse(r.outcomes.contains { $0.name.contains("upserts") })
    }

    /// Entries whose owner-only policies are backed by triggers that raise.
    static func entriesSQL(_ triggers: String, update: String = "(select auth.uid()) = user_id") -> String {
        """
        create table public.entries (
          id      bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id) on delete cascade,
          body    text not null
        );
        alter table public.entries enable row level security;
        grant select, insert, update, delete on public.entries to authenticated;
        grant all on public.entries to service_role;
        create policy "entries: read" on public.entries for select to authenticated using ((select auth.uid()) = user_id);
        create policy "entries: insert" on public.entries for insert to authenticated with check ((select auth.uid()) = user_id);
        create policy "entries: delete" on public.entries for delete to authenticated using ((select auth.uid()) = user_id);
        create policy "entries: update" on public.entries for update to authenticated
          using ((select auth.uid()) = user_id) with check (\(update));
        \(triggers)
        """
    }

    static let entriesAccess = "table public.entries\n  owner user_id\n  read owner\n  write owner\n"

    func testATriggerThatRefusesCountsAsNothingWritten() throws {
        let keep = """
            create function public.keep_entries() returns trigger language plpgsql as $$
              begin raise exception 'entries are kept'; end $$;
            create trigger keep before delete on public.entries for each row execute function public.keep_entries();
            create function public.fixed_owner() returns trigger language plpgsql as $$
              begin
                if new.user_id <> old.user_id then
                  raise exception using errcode = 'check_violation', message = 'an entry keeps its owner';
                end if;
                return new;
              end $$;
            create trigger owner_fixed before update on public.entries for each row execute function public.fixed_owner();
            """
        // The WITH CHECK lets a row be handed over; the trigger refuses it (23514 from a RAISE).
        let r = try runAPI(
            Self.entriesSQL(keep, update: "true"),
            access: Self.entriesAccess.replacingOccurrences(of: "write owner", with: "write owner\n  delete nobody"))
        XCTAssertTrue(r.passed, failures(r))
        for name in ["A deletes own row", "A hands own row over to B"] {
            let o = try XCTUnwrap(r.outcomes.first { $0.name == name })
            XCTAssertEqual(o.status, .passed, name)
            XCTAssertTrue(o.got?.hasPrefix("refused by a RAISE in a trigger or function") == true, o.got ?? "")
        }

        // The same trigger on a delete the access file allows: a failure, not an error.
        let allowed = try runAPI(Self.entriesSQL(keep), access: Self.entriesAccess)
        let o = try XCTUnwrap(allowed.outcomes.first { $0.name == "A deletes own row" })
        XCTAssertEqual(o.status, .failed)
        XCTAssertTrue(
            o.message?.hasPrefix(
                "public.entries · delete · as A: expected: the write goes through (at least 1 row); got: refused by a RAISE in a trigger or function (P0001: entries are kept)"
            ) == true, o.message ?? "")
    }

    func testOnlyARaiseIsARefusal() {
        func error(_ state: String, _ function: String?) -> PostgresError {
            var e = PostgresError(kind: .server, message: "m", sqlState: state)
            e.sourceFunction = function
            return e
        }
        XCTAssertTrue(APIChecks.isRefusal(error("P0001", "exec_stmt_raise")))
        XCTAssertTrue(APIChecks.isRefusal(error("23514", "exec_stmt_raise")))
        XCTAssertTrue(APIChecks.isRefusal(error("P0001", nil)))
        XCTAssertFalse(APIChecks.isRefusal(error("23514", "ExecConstraints")))  // a CHECK constraint
        XCTAssertFalse(APIChecks.isRefusal(error("P0004", "exec_stmt_assert")))  // a failed ASSERT
        XCTAssertFalse(APIChecks.isRefusal(error("23514", nil)))
        XCTAssertEqual(Observed(.failure(error("23514", "ExecConstraints"))), .error(sqlState: "23514", message: "m"))
        XCTAssertTrue(Expectation.blocked.accepts(Observed(.failure(error("RL001", "exec_stmt_raise")))))
        XCTAssertTrue(Expectation.sqlState("RL001").accepts(Observed(.failure(error("RL001", "exec_stmt_raise")))))
    }
}
