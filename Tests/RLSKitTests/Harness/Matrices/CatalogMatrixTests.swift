import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Tables no user owns: a public price list, a service-only log, a signed-in reference table.
final class CatalogMatrixTests: XCTestCase {
    static let schema = """
        create table public.plans (id serial primary key, name text not null, price int not null);
        create table public.audit_log (id bigint generated always as identity primary key, at timestamptz not null default now(), what text not null);
        create table public.countries (code text primary key, name text not null);
        alter table public.plans enable row level security;
        alter table public.audit_log enable row level security;
        alter table public.countries enable row level security;
        grant select, insert, update, delete on public.plans, public.audit_log, public.countries to anon, authenticated;
        grant all on public.plans, public.audit_log, public.countries to service_role;
        grant usage on all sequences in schema public to anon, authenticated, service_role;
        create policy read on public.plans for select to anon, authenticated using (true);
        create policy read on public.countries for select to authenticated using (true);
        """

    static let access = """
        table public.plans
          read anyone
          write nobody
        table public.audit_log
          read nobody
          write nobody
        table public.countries
          read signed-in
          write nobody
        """

    func testEveryAPIRoleIsCheckedForEveryOperation() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.plans: anon reads the row", "public.plans: A inserts a row",
                "public.audit_log: A reads the row",
                "public.audit_log: anon deletes the row", "public.countries: anon reads the row",
            ],
            bugs: [
                .init(
                    what: "signed-in users may add plans",
                    sql: "create policy add on public.plans for insert to authenticated with check (true);",
                    fails: ["public.plans: A inserts a row"]),
                .init(
                    what: "the audit log is readable",
                    sql: "create policy peek on public.audit_log for select to authenticated using (true);",
                    fails: ["public.audit_log: A reads the row"]),
                .init(
                    what: "countries readable by anon",
                    sql: "create policy anon_read on public.countries for select to anon using (true);",
                    fails: ["public.countries: anon reads the row"]),
                .init(
                    what: "plans editable by anyone",
                    sql:
                        "create policy edit on public.plans for update using (true) with check (true); create policy gone on public.plans for delete using (true);",
                    fails: ["public.plans: anon updates the row", "public.plans: A deletes the row"]),
            ])
    }

    func testCatalogNeedsNoOwnerButOwnerValuesDo() throws {
        XCTAssertNoThrow(try AccessFile.parse(Self.access, path: "a.rls"))
        XCTAssertThrowsError(try AccessFile.parse("table public.plans\n  read anyone\n  write owner\n", path: "a.rls"))
        {
            XCTAssertTrue(
                "\($0)".hasPrefix("a.rls:3: table public.plans has no 'owner' line, which 'write owner' needs"), "\($0)"
            )
        }
    }
}

/// A table whose every column is an identity or nullable: its rows need `default values`.
final class DefaultValuesTests: XCTestCase {
    func testCatalogTableWithNoColumnToFillIsInsertedWithDefaultValues() throws {
        let schema = """
            create table public.tariffs (id bigint generated always as identity primary key, amount int null);
            alter table public.tariffs enable row level security;
            grant select, insert, update, delete on public.tariffs to anon, authenticated;
            create policy r on public.tariffs for select using (true);
            """
        try IntentFixture.assertCatches(
            schema: schema, access: "table public.tariffs\n  read anyone\n  write nobody\n",
            present: ["public.tariffs: A inserts a row", "public.tariffs: anon inserts a row"],
            bugs: [
                .init(
                    what: "anyone may add tariffs",
                    sql: "create policy add on public.tariffs for insert with check (true);",
                    fails: ["public.tariffs: A inserts a row", "public.tariffs: anon inserts a row"])
            ])
    }
}
