import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Tables whose rows need parent rows (through NOT NULL foreign keys) are seeded and tested
/// without hand-written seeds; where that cannot be done the table is not covered, with why.
final class ParentSeedingTests: XCTestCase {
    /// Own-row policies for `table` (owner column `owner`), plus `insertCheck` on insert.
    static func ownRow(_ table: String, _ owner: String, insertCheck: String = "true") -> String {
        """
        alter table public.\(table) enable row level security;
        grant select, insert, update, delete on public.\(table) to authenticated;
        grant all on public.\(table) to service_role;
        create policy "\(table) read" on public.\(table) for select to authenticated using ((select auth.uid()) = \(owner));
        create policy "\(table) insert" on public.\(table) for insert to authenticated
          with check ((select auth.uid()) = \(owner) and \(insertCheck));
        create policy "\(table) update" on public.\(table) for update to authenticated
          using ((select auth.uid()) = \(owner)) with check ((select auth.uid()) = \(owner));
        create policy "\(table) delete" on public.\(table) for delete to authenticated using ((select auth.uid()) = \(owner));
        """
    }

    static func block(_ table: String, _ owner: String, _ extra: String = "") -> String {
        "table public.\(table)\n  owner \(owner)\n  read owner\n  write owner\n" + extra
    }

    func run(_ sql: String, _ access: String, after: ((PostgresConnection) throws -> Void)? = nil) throws
        -> TestReport
    {
        let db = try OurSchema.makeDatabase(extra: sql)
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "parents.rls")]
        let report = try Harness.run(input, on: db.connectionString)
        try after?(try PostgresConnection(db.connectionString))
        return report
    }

    func assertPassed(_ report: TestReport, _ suite: String, file: StaticString = #filePath, line: UInt = #line) {
        let mine = report.outcomes.filter { $0.suite == suite }
        XCTAssertGreaterThanOrEqual(
            mine.count, 12, TestReportWriter.render(report, format: .text), file: file, line: line)
        XCTAssertEqual(
            mine.filter { $0.status != .passed }.count, 0, TestReportWriter.render(report, format: .text), file: file,
            line: line)
    }

    static let chainSQL = """
        create table public.customers (id uuid primary key default gen_random_uuid(),
          user_id uuid not null references auth.users (id), name text not null);
        create table public.orders (id bigint generated always as identity primary key,
          customer_id uuid not null references public.customers (id), placed_on date not null, note text);
        create table public.order_lines (id bigint generated always as identity primary key,
          order_id bigint not null references public.orders (id), owner_id uuid not null references auth.users (id),
          sku text not null, qty int not null check (qty > 0), state text not null check (state in ('draft', 'sent')));
        grant select on public.orders, public.customers to authenticated;
        grant insert on public.customers to service_role;
        """
        + ownRow(
            "order_lines", "owner_id",
            insertCheck:
                "exists (select 1 from public.orders o join public.customers c on c.id = o.customer_id where o.id = order_id and c.user_id = (select auth.uid()))"
        )

    /// order_line → order → customer (the user's): parents as the connecting role (service_role
    /// may not insert, or not read back); the line's own state takes a value its check accepts.
    func testChainOfThreeIsSeededAndRolledBack() throws {
        let report = try run(Self.chainSQL, Self.block("order_lines", "owner_id")) { conn in
            let left: Int = try conn.query(
                "select (select count(*) from public.customers) + (select count(*) from public.orders) as n"
            ).rows[0].decode("n")
            XCTAssertEqual(left, 0)
        }
        assertPassed(report, "public.order_lines")
    }

    static let teamSQL = """
        create table public.teams (id uuid primary key default gen_random_uuid(), name text not null);
        create table public.team_members (team_id uuid not null references public.teams (id),
          user_id uuid not null references auth.users (id), primary key (team_id, user_id));
        create table public.projects (id bigint generated always as identity primary key,
          team_id uuid not null, owner_id uuid not null, title text not null,
          constraint a_member foreign key (team_id, owner_id) references public.team_members (team_id, user_id),
          constraint b_team foreign key (team_id) references public.teams (id));
        grant all on public.teams, public.team_members to service_role;
        grant select on public.team_members to authenticated;
        """
        + ownRow(
            "projects", "owner_id",
            insertCheck:
                "exists (select 1 from public.team_members m where m.team_id = projects.team_id and m.user_id = (select auth.uid()))"
        )

    /// A composite key (team, user) → membership → team; the single-column key to the team reuses that team.
    func testCompositeForeignKey() throws {
        let report = try run(Self.teamSQL, Self.block("projects", "owner_id")) { conn in
            XCTAssertEqual(try conn.query("select id from public.teams").rows.count, 0)
        }
        assertPassed(report, "public.projects")
    }

    static let channelSQL = """
        create type public.channel_kind as enum ('archived', 'public', 'private');
        create table public.channels (id bigint generated always as identity primary key,
          owner_id uuid not null references auth.users (id),
          kind public.channel_kind not null check (kind <> 'archived') check (kind::text <> 'gone'),
          muted boolean not null check (not muted),
          status text not null check (status in ('open', 'closed')),
          priority int not null check (priority between 5 and 9),
          topic text not null check (topic ~ '^#[a-z]+$'));
        grant all on public.channels to service_role;
        create table public.messages (id bigint generated always as identity primary key,
          channel_id bigint not null references public.channels (id),
          author_id uuid not null references auth.users (id), body text not null);
        """

    static let ownChannel =
        "exists (select 1 from public.channels c where c.id = channel_id and c.owner_id = (select auth.uid()))"

    /// The channel takes an enum label and values its checks accept; its topic only a seed line can give.
    func testParentWithEnumAndChecksAndASeedLineThatWins() throws {
        let sql = Self.channelSQL + Self.ownRow("messages", "author_id", insertCheck: Self.ownChannel)
        let access = Self.block("messages", "author_id")
        let without = try run(sql, access)
        let uncovered = without.outcomes.filter { $0.suite == "public.messages" }
        XCTAssertEqual(uncovered.map(\.status), [.error])
        XCTAssertTrue(uncovered[0].message!.contains("channels_topic_check"), uncovered[0].message!)
        // Declared, channels is tested itself, and its seed line holds where it is a parent too.
        let report = try run(
            sql + "\n" + Self.ownRow("channels", "owner_id"),
            access + Self.block("channels", "owner_id", "  seed topic = '#general'\n"))
        assertPassed(report, "public.messages")
        assertPassed(report, "public.channels")
    }

    /// The channel belongs to the message's author: an insert policy demanding one's own channel passes.
    func testParentOwnedByTheSameUser() throws {
        let db = try OurSchema.makeDatabase(
            extra: Self.channelSQL + "\nalter table public.channels drop constraint channels_topic_check;\n"
                + "grant select on public.channels to authenticated;\n"
                + Self.ownRow("messages", "author_id", insertCheck: Self.ownChannel))
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        let access = try AccessFile.parse(Self.block("messages", "author_id"), path: "parents.rls")
        var info = try Catalog.table(conn, schema: "public", name: "messages")
        info.declared = [:]
        let plan = ParentPlan(table: info, intent: access.tables[0])
        XCTAssertNil(plan.problem)
        XCTAssertEqual(plan.nodes.map(\.table.name), ["channels"])
        XCTAssertEqual(plan.nodes[0].sources["owner_id"], .owner)
        XCTAssertEqual(plan.root["channel_id"], .parent(node: 0, column: "id"))
        var input = HarnessInput()
        input.access = [access]
        let report = try Harness.run(input, on: db.connectionString)
        assertPassed(report, "public.messages")
    }

    func testNotNullCycleIsNotCoveredNamingTheTables() throws {
        let sql = """
            create table public.a (id int primary key, b_id int not null);
            create table public.b (id int primary key, a_id int not null references public.a (id));
            alter table public.a add constraint a_b foreign key (b_id) references public.b (id);
            create table public.c (id int primary key, owner_id uuid not null references auth.users (id),
              a_id int not null references public.a (id));
            """ + Self.ownRow("c", "owner_id")
        let report = try run(sql, Self.block("c", "owner_id"))
        let c = report.outcomes.filter { $0.suite == "public.c" }
        XCTAssertEqual(c.map(\.status), [.error])
        let m = c[0].message ?? ""
        XCTAssertTrue(
            m.hasPrefix(
                "not covered: public.c(a_id) needs a row in public.a, but public.a(b_id) → public.b(a_id) → public.a is a cycle of NOT NULL foreign keys"
            ), m)
    }

    /// A policy bug on a table that needs parents is found now (it was "not covered" before).
    func testBuggyPolicyOnAChildTableIsFound() throws {
        let sql =
            Self.chainSQL
            + "\ndrop policy \"order_lines read\" on public.order_lines;\ncreate policy \"order_lines read\" on public.order_lines for select to authenticated using (true);"
        let report = try run(sql, Self.block("order_lines", "owner_id"))
        let failed = report.outcomes.filter { $0.suite == "public.order_lines" && $0.status == .failed }
        XCTAssertEqual(
            failed.map(\.name).sorted(), ["A reads B's row", "B reads A's row"],
            TestReportWriter.render(report, format: .text))
    }

    /// profiles.id references auth.users, so the parent is the owner's profile: the one the
    /// sign-up trigger made is reused (inserting another would break the primary key).
    func testProfileMadeAtSignUpIsReused() throws {
        let sql = """
            create table public.todos (id bigint generated always as identity primary key,
              user_id uuid not null references auth.users (id),
              profile_id uuid not null references public.profiles (id), task text not null);
            """ + Self.ownRow("todos", "user_id", insertCheck: "profile_id = (select auth.uid())")
        let report = try run(sql, Self.block("todos", "user_id"))
        assertPassed(report, "public.todos")
    }

    /// A seed line for the foreign-key column itself wins: no parent is made (plans has a column rlskit cannot fill).
    func testSeedLineOnTheForeignKeyReplacesTheParent() throws {
        let sql = """
            create table public.plans (id int primary key, area point not null);
            insert into public.plans values (7, point(0, 0));
            create table public.subscriptions (id bigint generated always as identity primary key,
              owner_id uuid not null references auth.users (id), plan_id int not null references public.plans (id));
            """ + Self.ownRow("subscriptions", "owner_id")
        let without = try run(sql, Self.block("subscriptions", "owner_id"))
        let m = without.outcomes.first { $0.suite == "public.subscriptions" }?.message ?? ""
        XCTAssertTrue(
            m.hasPrefix(
                "not covered: public.subscriptions(plan_id) needs a row in public.plans, whose column area of type point rlskit cannot fill"
            ), m)
        let report = try run(sql, Self.block("subscriptions", "owner_id", "  seed plan_id = 7\n"))
        assertPassed(report, "public.subscriptions")
    }

    /// A parent rlskit could not insert (a column of type point) is found when sign-up made it.
    func testRowMadeAtSignUpIsFoundWhenItCannotBeInserted() throws {
        let sql = """
            create table public.accounts (user_id uuid primary key references auth.users (id), area point not null);
            create function public.make_account() returns trigger language plpgsql security definer set search_path = ''
              as $$ begin insert into public.accounts values (new.id, point(0, 0)); return new; end $$;
            create trigger make_account after insert on auth.users for each row execute function public.make_account();
            create table public.invoices (id bigint generated always as identity primary key,
              owner_id uuid not null references auth.users (id),
              account_id uuid not null references public.accounts (user_id), total int not null);
            """ + Self.ownRow("invoices", "owner_id", insertCheck: "account_id = (select auth.uid())")
        let report = try run(sql, Self.block("invoices", "owner_id"))
        assertPassed(report, "public.invoices")
        let without = try run(sql + "\ndrop trigger make_account on auth.users;", Self.block("invoices", "owner_id"))
        let m = without.outcomes.first { $0.suite == "public.invoices" }?.message ?? ""
        XCTAssertTrue(
            m.hasPrefix("not covered: seeding rows for the test users failed")
                && m.contains("the user has no row in public.accounts, and its column area cannot be filled"), m)
    }

    func testCheckExpressionsReadTheCandidateInsteadOfTheColumn() {
        XCTAssertEqual(
            Seeder.substitute("status", in: "((status)::text = ANY ((ARRAY['a'::character varying])::text[]))"),
            "((s.v)::text = ANY ((ARRAY['a'::character varying])::text[]))")
        XCTAssertEqual(Seeder.substitute("order", in: "(\"order\" > 0)"), "(s.v > 0)")
        XCTAssertEqual(Seeder.substitute("Qty", in: "(\"Qty\" > qty)"), "(s.v > qty)")
        XCTAssertEqual(Seeder.substitute("len", in: "(len(x) > t.len)"), "(len(x) > t.len)")
    }

    /// A nullable self-reference (and a nullable way back) is left NULL; a NOT NULL one is a cycle.
    func testSelfReferences() throws {
        let sql = """
            create table public.folders (id int primary key, parent_id int references public.folders (id),
              name text not null);
            create table public.files (id int primary key, owner_id uuid not null references auth.users (id),
              folder_id int not null references public.folders (id), head_id int references public.files (id));
            alter table public.folders add column pinned_file int references public.files (id);
            create table public.nodes (id int primary key, owner_id uuid not null references auth.users (id),
              up_id int not null references public.nodes (id));
            """ + Self.ownRow("files", "owner_id") + Self.ownRow("nodes", "owner_id")
        let report = try run(sql, Self.block("files", "owner_id") + Self.block("nodes", "owner_id"))
        assertPassed(report, "public.files")
        let m = report.outcomes.first { $0.suite == "public.nodes" }?.message ?? ""
        XCTAssertTrue(
            m.hasPrefix(
                "not covered: public.nodes(up_id) needs a row in public.nodes, but public.nodes(up_id) → public.nodes is a cycle of NOT NULL foreign keys"
            ), m)
    }

    /// A trigger that takes the channel's owner from auth.uid() sees the message's author.
    func testParentMadeWithTheOwnersUserId() throws {
        let sql =
            Self.channelSQL + """

                alter table public.channels drop constraint channels_topic_check;
                grant select on public.channels to authenticated;
                create function public.own_channel() returns trigger language plpgsql as $$
                  begin new.owner_id := auth.uid(); return new; end $$;
                create trigger own_channel before insert on public.channels for each row execute function public.own_channel();
                """ + Self.ownRow("messages", "author_id", insertCheck: Self.ownChannel)
        let report = try run(sql, Self.block("messages", "author_id"))
        assertPassed(report, "public.messages")
    }
}
