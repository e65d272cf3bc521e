import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Foreign keys that carry the tenant (`(bin_id, org_id) → bins (id, org_id)`): the parent a
/// group's row needs is made in that group, G1's and G2's parents apart, with or without an
/// access file.
final class GroupParentTests: XCTestCase {
    /// A depot app: orgs and their members; stock in bins, order items of orders of vendors,
    /// each key to a parent carrying org_id; slots on shared shelves keyed without the org.
    static let schema = """
        create table public.orgs (id uuid primary key default gen_random_uuid(), name text not null);
        create table public.org_members (
          org_id uuid not null references public.orgs (id) on delete cascade,
          user_id uuid not null references auth.users (id) on delete cascade,
          role text not null default 'staff' check (role in ('admin', 'staff')),
          primary key (org_id, user_id));
        create function public.in_org(o uuid) returns boolean language sql stable security definer
          set search_path = '' as $$
          select exists (select 1 from public.org_members where org_id = o and user_id = (select auth.uid())) $$;
        create table public.bins (id uuid primary key default gen_random_uuid(),
          org_id uuid not null references public.orgs (id), label text not null unique, unique (id, org_id));
        create table public.stock (id bigint generated always as identity primary key,
          org_id uuid not null references public.orgs (id), bin_id uuid not null references public.bins (id),
          qty int not null check (qty >= 0), foreign key (bin_id, org_id) references public.bins (id, org_id));
        create table public.vendors (id uuid primary key default gen_random_uuid(),
          org_id uuid not null references public.orgs (id), name text not null, unique (id, org_id));
        create table public.orders (id uuid primary key default gen_random_uuid(),
          org_id uuid not null references public.orgs (id), vendor_id uuid not null, code text not null unique,
          unique (id, org_id), foreign key (vendor_id, org_id) references public.vendors (id, org_id));
        create table public.order_items (id bigint generated always as identity primary key,
          org_id uuid not null references public.orgs (id), order_id uuid not null, qty int not null,
          foreign key (order_id, org_id) references public.orders (id, org_id));
        create table public.shelves (id uuid primary key default gen_random_uuid(), code text not null,
          unique (id, code));
        create table public.slots (id bigint generated always as identity primary key,
          org_id uuid not null references public.orgs (id), shelf_id uuid not null, shelf_code text not null,
          foreign key (shelf_id, shelf_code) references public.shelves (id, code));
        do $$ declare t text; begin
          foreach t in array array['orgs', 'org_members', 'bins', 'stock', 'vendors', 'orders', 'order_items',
            'shelves', 'slots'] loop
            execute format('alter table public.%I enable row level security', t);
            execute format('grant all on public.%I to service_role', t);
          end loop;
          foreach t in array array['bins', 'stock', 'vendors', 'orders', 'order_items', 'slots'] loop
            execute format('grant select, insert, update, delete on public.%I to authenticated', t);
            execute format('create policy %I on public.%I for all to authenticated
              using (public.in_org(org_id)) with check (public.in_org(org_id))', t || ' in org', t);
          end loop; end $$;
        grant select on public.orgs, public.org_members, public.shelves to authenticated;
        create policy "members read orgs" on public.orgs for select to authenticated using (public.in_org(id));
        create policy "members read members" on public.org_members for select to authenticated
          using (public.in_org(org_id));
        create policy "shelves are shared" on public.shelves for select to authenticated using (true);
        """

    static let tables = ["bins", "stock", "vendors", "orders", "order_items", "slots"]

    static let access =
        """
        members public.org_members
          group org_id
          user user_id
          role role
          roles admin staff
          read members
          add nobody
          remove nobody
          leave nobody
          change-role nobody

        """
        + tables.map { "table public.\($0)\n  group org_id\n  read members\n  write members\n" }.joined(
            separator: "\n")

    func harness(_ extra: String = "", access: String = GroupParentTests.access) throws -> TestReport {
        let db = try StandIn.makeDatabase(prefix: "grpparent")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema + "\n" + extra)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "depot.rls")]
        let report = try Harness.run(input, options: HarnessOptions(), on: db.connectionString)
        let left: Int = try db.conn.query(
            "select (select count(*) from public.bins) + (select count(*) from public.orders) + (select count(*) from public.shelves) as n"
        ).rows[0].decode("n")
        XCTAssertEqual(left, 0, "parents left behind")
        return report
    }

    /// Each variant is seeded and every check passes: a two-column key, a chain of them, and a
    /// composite key without the group column (a parent as before).
    func testParentsCarryingTheGroupAreMadeInTheGroup() throws {
        let report = try harness()
        let text = TestReportWriter.render(report, format: .text)
        for t in Self.tables {
            let mine = report.outcomes.filter { $0.suite == "public.\(t)" }
            XCTAssertGreaterThan(mine.count, 20, "\(t): \(text)")
            XCTAssertEqual(mine.filter { $0.status != .passed }.map(\.name), [], "\(t): \(text)")
        }
        let names = Set(report.outcomes.map { "\($0.suite): \($0.name)" })
        XCTAssertTrue(names.contains("public.order_items: G1 admin moves G1's row into G2"))
    }

    /// A leak in one of them is still caught: order items readable across orgs.
    func testCrossTenantReadOnAChildIsFound() throws {
        let report = try harness(
            """
            drop policy "order_items in org" on public.order_items;
            create policy leak on public.order_items for select to authenticated using (true);
            create policy w on public.order_items for insert to authenticated with check (public.in_org(org_id));
            create policy u on public.order_items for update to authenticated using (public.in_org(org_id));
            create policy d on public.order_items for delete to authenticated using (public.in_org(org_id));
            """)
        let failed = report.outcomes.filter(\.isFailure).map { "\($0.suite): \($0.name)" }
        XCTAssertTrue(failed.contains("public.order_items: G2 admin reads G1's row"), "\(failed)")
        XCTAssertTrue(failed.contains("public.order_items: outsider reads G1's row"), "\(failed)")
        XCTAssertEqual(failed.filter { !$0.hasPrefix("public.order_items") }, [])
    }

    /// Through a level: picks belong to their aisle's org; an aisle's zone carries the org, a
    /// pick's tag carries the aisle (the level's key), so each is made in its own level's row.
    static let through = """
        create table public.zones (id uuid primary key default gen_random_uuid(),
          org_id uuid not null references public.orgs (id), name text not null, unique (id, org_id));
        create table public.aisles (id uuid primary key default gen_random_uuid(),
          org_id uuid not null references public.orgs (id), zone_id uuid not null,
          foreign key (zone_id, org_id) references public.zones (id, org_id));
        create table public.aisle_tags (id uuid primary key default gen_random_uuid(),
          aisle_id uuid not null references public.aisles (id), name text not null unique, unique (id, aisle_id));
        create table public.picks (id bigint generated always as identity primary key,
          aisle_id uuid not null references public.aisles (id), tag_id uuid not null, qty int not null,
          foreign key (tag_id, aisle_id) references public.aisle_tags (id, aisle_id));
        create function public.in_aisle(a uuid) returns boolean language sql stable security definer
          set search_path = '' as $$
          select exists (select 1 from public.aisles x where x.id = a and public.in_org(x.org_id)) $$;
        do $$ declare t text; begin
          foreach t in array array['zones', 'aisles', 'aisle_tags', 'picks'] loop
            execute format('alter table public.%I enable row level security', t);
            execute format('grant all on public.%I to service_role', t);
            execute format('grant select, insert, update, delete on public.%I to authenticated', t);
          end loop; end $$;
        create policy "zones in org" on public.zones for all to authenticated
          using (public.in_org(org_id)) with check (public.in_org(org_id));
        create policy "aisles in org" on public.aisles for all to authenticated
          using (public.in_org(org_id)) with check (public.in_org(org_id));
        create policy "tags in aisle" on public.aisle_tags for all to authenticated
          using (public.in_aisle(aisle_id)) with check (public.in_aisle(aisle_id));
        create policy "picks in aisle" on public.picks for all to authenticated
          using (public.in_aisle(aisle_id)) with check (public.in_aisle(aisle_id));
        """

    func testThroughALevelEachParentIsMadeInItsLevelsRow() throws {
        let access =
            Self.access + """

                table public.aisles
                  group org_id
                  read members
                  write members

                table public.picks
                  group aisle_id through public.aisles
                  read members
                  write members
                """
        let report = try harness(Self.through, access: access)
        let text = TestReportWriter.render(report, format: .text)
        for t in ["aisles", "picks"] {
            let mine = report.outcomes.filter { $0.suite == "public.\(t)" }
            XCTAssertGreaterThan(mine.count, 20, "\(t): \(text)")
            XCTAssertEqual(mine.filter { $0.status != .passed }.map(\.name), [], "\(t): \(text)")
        }
    }

    /// Parents of G1 and G2 are kept under different settings; without the group in the key the
    /// settings keep their plain names.
    func testPlanPinsTheGroupAndNamesItsSettingsByGroup() throws {
        let db = try StandIn.makeDatabase(prefix: "grpplan")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema)
        let file = try AccessFile.parse(Self.access, path: "depot.rls")
        func plan(_ table: String, _ group: String, seeds: String = "") throws -> ParentPlan {
            var info = try Catalog.table(db.conn, schema: "public", name: table)
            info.declared = [:]
            let head = "table public.\(table)\n  group org_id\n"
            let with = try AccessFile.parse(
                Self.access.replacingOccurrences(of: head, with: head + seeds), path: "s.rls")
            let intent = (seeds.isEmpty ? file : with).tables.first { $0.name == table }!
            return Seeder(table: info, intent: intent, fixed: ["org_id": group]).parents
        }
        let (g1, g2) = ("'00000000-0000-0000-0000-000000000001'::uuid", "'00000000-0000-0000-0000-000000000002'::uuid")
        let chain = try plan("order_items", g1)
        XCTAssertEqual(chain.nodes.map(\.table.name), ["vendors", "orders"])
        XCTAssertEqual(chain.nodes.map { $0.sources["org_id"] }, [.group(g1), .group(g1)])
        XCTAssertEqual(chain.root["order_id"], .parent(node: 1, column: "id"))
        XCTAssertNil(chain.root["org_id"])
        let other = try plan("order_items", g2)
        let owner = "9f0c6f5e-0000-0000-0000-000000000000"
        XCTAssertTrue(chain.isGroupBound)
        XCTAssertNotEqual(chain.setting(1, "id", owner: owner), other.setting(1, "id", owner: owner))
        // One parent for both keys of stock: the plain key to bins finds the group's bin.
        let stock = try plan("stock", g1)
        XCTAssertEqual(stock.nodes.map(\.table.name), ["bins"])
        XCTAssertEqual(stock.root["bin_id"], .parent(node: 0, column: "id"))
        // No group in the key: the shelf is made as before, its settings named as before.
        let slots = try plan("slots", g1)
        XCTAssertEqual(slots.nodes.map(\.table.name), ["shelves"])
        XCTAssertFalse(slots.isGroupBound)
        XCTAssertEqual(slots.setting(0, "id", owner: owner), try plan("slots", g2).setting(0, "id", owner: owner))
        // A seed line on the key column wins: no parent is made.
        let seeded = try plan("stock", g1, seeds: "  seed bin_id = public.pick_bin()\n")
        XCTAssertEqual(seeded.nodes.count, 0)
        XCTAssertNil(seeded.root["bin_id"])
    }

    /// With a seed line naming the bin itself (a bin of the row's org, found by a helper),
    /// the seed is used: no bin is made by rlskit and the checks pass.
    func testSeedLineOnTheKeyColumnStillWins() throws {
        let helper = """
            create table public.bin_pool (org_id uuid primary key, bin_id uuid not null);
            grant select on public.bin_pool to authenticated, service_role;
            create function public.add_pool_bin() returns trigger language plpgsql security definer
              set search_path = '' as $$
              declare b uuid;
              begin insert into public.bins (org_id, label) values (new.id, 'pool-' || new.id) returning id into b;
                insert into public.bin_pool values (new.id, b); return new; end $$;
            create trigger orgs_pool after insert on public.orgs for each row execute function public.add_pool_bin();
            """
        let access = Self.access.replacingOccurrences(
            of: "table public.stock\n  group org_id\n",
            with:
                "table public.stock\n  group org_id\n  seed bin_id = (select bin_id from public.bin_pool order by org_id limit 1)\n"
        )
        let report = try harness(helper, access: access)
        // The seed names one pool bin for every row: G2's row (another org) cannot use it.
        let stock = report.outcomes.filter { $0.suite == "public.stock" }
        XCTAssertEqual(stock.map(\.status), [.error], TestReportWriter.render(report, format: .text))
        XCTAssertTrue(stock[0].message?.contains("stock_bin_id_org_id_fkey") == true, stock[0].message ?? "")
    }
}
