import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// An owner-only table whose policies we vary; the rest of the schema is ours.
let itemsSQL = """
    create table public.items (
      id      bigint generated always as identity primary key,
      user_id uuid not null references auth.users (id) on delete cascade,
      body    text not null
    );
    alter table public.items enable row level security;
    grant select, insert, update, delete on public.items to authenticated;
    grant all on public.items to service_role;
    create policy "items: insert" on public.items for insert to authenticated with check ((select auth.uid()) = user_id);
    create policy "items: delete" on public.items for delete to authenticated using ((select auth.uid()) = user_id);
    """

let itemsAccess = """
    table public.items
      owner user_id
      read owner
      write owner

    """

/// Our schema plus `sql`, tested with only the access file `access`; the database is dropped afterwards.
func runAPI(_ sql: String, access: String) throws -> TestReport {
    let db = try OurSchema.makeDatabase(extra: sql)
    defer { TestServer.drop(db.name) }
    var input = HarnessInput()
    input.access = [try AccessFile.parse(access, path: "api.rls")]
    return try Harness.run(input, on: db.connectionString)
}

func failures(_ r: TestReport) -> String {
    r.outcomes.filter(\.isFailure).compactMap(\.message).joined(separator: "\n")
}

/// Checks run as PostgREST runs requests: GET read only, method, path and headers set.
final class APIRequestTests: XCTestCase {
    func run(_ policies: String, access: String = itemsAccess) throws -> TestReport {
        try runAPI(itemsSQL + "\n" + policies, access: access)
    }

    static let ownRead =
        "create policy \"items: read\" on public.items for select to authenticated using ((select auth.uid()) = user_id);"
    static let ownUpdate =
        "create policy \"items: update\" on public.items for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);"

    func testAReadThatWritesIsAnErrorAtThatCheck() throws {
        let writing = """
            create table public.read_log (item bigint, at timestamptz default now());
            create function public.log_read(i bigint) returns boolean language plpgsql volatile security definer
              set search_path = '' as $$ begin insert into public.read_log (item) values (i); return true; end $$;
            create policy "items: read" on public.items for select to authenticated
              using ((select auth.uid()) = user_id and public.log_read(id));
            """
        let report = try run(writing + Self.ownUpdate)
        let o = try XCTUnwrap(report.outcomes.first { $0.name == "A reads own row" })
        XCTAssertEqual(o.status, .error, o.message ?? "")
        XCTAssertTrue(o.message?.contains("25006") == true, o.message ?? "")
        XCTAssertTrue(o.message?.contains("READ ONLY") == true, o.message ?? "")
        XCTAssertTrue(o.message?.hasPrefix("public.items · select · as A") == true, o.message ?? "")
        // Writes still run read-write.
        XCTAssertEqual(report.outcomes.first { $0.name == "A inserts own row" }?.status, .passed)

        let clean = try run(Self.ownRead + Self.ownUpdate)
        XCTAssertTrue(clean.passed, clean.outcomes.filter(\.isFailure).compactMap(\.message).joined(separator: "\n"))
    }

    func testABucketListingThatWritesIsAnError() throws {
        let writing = """
            create table public.list_log (name text);
            create function public.log_list(n text) returns boolean language plpgsql volatile security definer
              set search_path = '' as $$ begin insert into public.list_log values (n); return true; end $$;
            create policy logged on storage.objects as restrictive for select to authenticated using (public.log_list(name));
            """
        let access = "bucket avatars\n  read public\n  write own-folder\n"
        let r = try runAPI(writing, access: access)
        let o = try XCTUnwrap(r.outcomes.first { $0.name == "A lists own object" })
        XCTAssertEqual(o.status, .error, o.message ?? "")
        XCTAssertTrue(o.message?.contains("25006") == true, o.message ?? "")
        let clean = try runAPI("", access: access)
        XCTAssertTrue(clean.passed, failures(clean))
    }

    func testReadOnlyIsUndoneForTheNextCheck() throws {
        let db = try OurSchema.makeDatabase(extra: itemsSQL)
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        defer { conn.close() }
        _ = try conn.query("begin")
        let r = try conn.pipeline(
            groups: [
                ["select set_config('transaction_read_only', 'on', true)", "create temp table x (i int)"],
                ["select current_setting('transaction_read_only')"],
            ].map { $0.map { PostgresStatement($0) } }, isolation: .rollbackEach)
        guard case .failure(let e) = r[0][1] else { return XCTFail("write in a read-only check went through") }
        XCTAssertEqual(e.sqlState, "25006")
        guard case .success(let s) = r[1][0] else { return XCTFail("\(r[1])") }
        XCTAssertEqual(s.rows[0].values, ["off"])
        _ = try conn.query("rollback")
    }

    /// PostgREST calls `pgrst.db_pre_request` before every request, after the role, claims and
    /// headers are set: a policy that relies on what it sets passes only when rlskit calls it too.
    func testPreRequestFunctionRunsBeforeEveryRequest() throws {
        let policies = """
            create function public.check_request() returns void language plpgsql as $$
            begin
              perform set_config('app.checked', (current_setting('request.jwt.claims', true)::json ->> 'role')
                || ' ' || current_user, true);
            end $$;
            grant execute on function public.check_request() to anon, authenticated;
            create policy "items: read" on public.items for select to authenticated using (
              (select auth.uid()) = user_id and current_setting('app.checked', true) = 'authenticated authenticated');
            create policy "items: update" on public.items for update to authenticated using (
              (select auth.uid()) = user_id and current_setting('app.checked', true) = 'authenticated authenticated');
            """
        func setting(_ name: String) -> String {
            "do $$ begin execute format('alter role authenticator in database %I set pgrst.db_pre_request = %L', "
                + "current_database(), \(SQL.literal(name))); end $$;\n"
        }
        for name in ["public.check_request", "\"public\".\"check_request\""] {
            let called = try run(policies + setting(name))
            XCTAssertTrue(called.passed, name + "\n" + failures(called))
        }
        // Without the setting nothing calls it: A no longer reads or updates its own rows.
        let uncalled = try run(policies)
        let failed = Set(uncalled.outcomes.filter(\.isFailure).map(\.name))
        XCTAssertTrue(failed.contains("A reads own row"), "\(failed)")
        XCTAssertEqual(PreRequest.quoted("a.b.c"), nil)
        XCTAssertEqual(PreRequest.quoted("check"), "\"check\"")
    }

    func testMethodPathAndHeadersAreSetAsPostgRESTSetsThem() throws {
        let policies = """
            create policy "items: read" on public.items for select to authenticated using (
              (select auth.uid()) = user_id and current_setting('request.method', true) in ('GET', 'POST', 'PATCH', 'DELETE')
              and current_setting('request.path', true) = '/items'
              and (current_setting('request.headers', true)::json ->> 'x-tenant') = (select auth.uid())::text);
            create policy "items: update" on public.items for update to authenticated using (
              (select auth.uid()) = user_id and current_setting('request.method', true) = 'PATCH'
              and (current_setting('request.headers', true)::json ->> 'content-type') = 'application/json');
            """
        let good = try run(policies, access: "header x-tenant = {uid}\n" + itemsAccess)
        XCTAssertTrue(good.passed, good.outcomes.filter(\.isFailure).compactMap(\.message).joined(separator: "\n"))
        // The header the policy reads is not the one the access file sends.
        let wrong = try run(policies, access: "header X-Tenant-Id = {uid}\n" + itemsAccess)
        let failed = wrong.outcomes.filter(\.isFailure).map(\.name)
        XCTAssertEqual(
            failed,
            ["A reads own row", "A updates own row", "A deletes own row", "A inserts own row and reads it back"])
    }

    func testHeaderLineMistakesNameTheLine() {
        let cases: [(String, String)] = [
            ("header x-tenant {uid}", "write 'header name = value'"),
            ("header = 1", "is not a header name"),
            ("header x tenant = 1", "is not a header name"),
            ("header Prefer = return=minimal", "set by rlskit"),
            ("header x-t = ", "has no value"),
            ("header x-t = {team}", "use {uid} (the signed-in user's id) or {group}"),
            ("header x-t = 1\nheader X-T = 2", "already given at line 1"),
        ]
        for (text, want) in cases {
            do {
                _ = try AccessFile.parse(text + "\n" + itemsAccess, path: "api.rls")
                XCTFail("accepted: \(text)")
            } catch {
                XCTAssertTrue(error.message.contains(want), "\(text): \(error)")
                XCTAssertEqual(error.location.file, "api.rls")
                XCTAssertEqual(error.location.line, text.contains("\n") ? 2 : 1, text)
            }
        }
        let ok = try? AccessFile.parse("header X-Tenant = t-{uid}\n" + itemsAccess, path: "api.rls")
        XCTAssertEqual(ok?.headers.map(\.name), ["x-tenant"])
        let a = HarnessActor.user("A")
        XCTAssertEqual(ok?.headers.first?.value(for: a), "t-" + a.uid)
        XCTAssertNil(ok?.headers.first?.value(for: .anon))
    }

    func testRandomHeaderLinesNeverCrashAndNameTheirLine() {
        var rng = SeededGenerator(seed: 0x6865_6164)
        let alphabet = Array("header x-Tenant = {uid}{}\"'#\t=é-_ ")
        for _ in 0..<2000 {
            let body = String(
                (0..<Int.random(in: 0...30, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            do {
                let f = try AccessFile.parse("header " + body + "\n" + itemsAccess, path: "f.rls")
                XCTAssertEqual(f.headers.count, 1, body)
            } catch {
                XCTAssertEqual(error.location.line, 1, "\(body): \(error)")
                XCTAssertFalse(error.message.isEmpty)
            }
        }
    }
}
