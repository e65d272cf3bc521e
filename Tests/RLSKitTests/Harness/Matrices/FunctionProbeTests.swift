import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// The probe calls the exposed SECURITY DEFINER functions on a real server and reports what
/// they did, as anon and as a stranger; nothing it does survives.
final class FunctionProbeTests: XCTestCase {
    static let setup = """
        insert into auth.users (id, email) values
          ('11111111-1111-1111-1111-111111111111', 'owner@example.test'),
          ('22222222-2222-2222-2222-222222222222', 'member@example.test');
        create table public.members (account_id uuid, user_id uuid, role text);
        insert into public.members values
          ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', '11111111-1111-1111-1111-111111111111', 'owner'),
          ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', '22222222-2222-2222-2222-222222222222', 'member');
        create table public.notes (id bigint primary key, user_id uuid, body text);
        insert into public.notes values (1, '11111111-1111-1111-1111-111111111111', 'secret');
        -- NULL skips the guard: anyone can promote anyone.
        create function public.promote(account_id uuid, user_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        declare v_role text;
        begin
          select m.role into v_role from public.members m where m.account_id = promote.account_id and m.user_id = auth.uid();
          if v_role <> 'owner' then raise exception 'only owners'; end if;
          update public.members m set role = 'owner' where m.account_id = promote.account_id and m.user_id = promote.user_id;
        end $$;
        -- The fixed guard refuses.
        create function public.promote_safely(account_id uuid, user_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        declare v_role text;
        begin
          select m.role into v_role from public.members m where m.account_id = promote_safely.account_id and m.user_id = auth.uid();
          if v_role is distinct from 'owner' then raise exception 'only owners'; end if;
          update public.members m set role = 'owner' where m.account_id = promote_safely.account_id;
        end $$;
        -- Returns anyone's notes by owner id.
        create function public.notes_of(user_id uuid) returns setof public.notes language sql stable
          security definer set search_path = '' as $$ select * from public.notes n where n.user_id = notes_of.user_id $$;
        -- Only the caller's own notes.
        create function public.my_notes() returns setof public.notes language sql stable
          security definer set search_path = '' as $$ select * from public.notes n where n.user_id = auth.uid() $$;
        """

    func testReportsWritesAndOtherUsersRowsAndNothingSurvives() throws {
        let db = try StandIn.makeDatabase(prefix: "probe")
        let conn = try PostgresConnection(db.connectionString)
        _ = try conn.runScript(Self.setup)
        let outcomes = try FunctionProbe.run(conn, exposedSchemas: ["public"])
        let byCall = Dictionary(uniqueKeysWithValues: outcomes.map { ("\($0.function) \($0.caller)", $0) })

        let promote = try XCTUnwrap(byCall["public.promote(uuid, uuid) anon"])
        XCTAssertEqual(promote.writes, ["public.members: 1 updated"])
        XCTAssertTrue(promote.isFinding)
        XCTAssertEqual(byCall["public.promote(uuid, uuid) a stranger"]?.writes, ["public.members: 1 updated"])

        let safe = try XCTUnwrap(byCall["public.promote_safely(uuid, uuid) anon"])
        XCTAssertEqual(safe.refused, "only owners")
        XCTAssertFalse(safe.isFinding)

        XCTAssertEqual(byCall["public.notes_of(uuid) anon"]?.othersRows, 1)
        XCTAssertEqual(
            byCall["public.notes_of(uuid) anon"]?.sentence,
            "public.notes_of(uuid) as anon: returned 1 row of other users")
        XCTAssertEqual(byCall["public.my_notes() a stranger"]?.isFinding, false)
        XCTAssertEqual(
            byCall["public.my_notes() a stranger"]?.sentence, "public.my_notes() as a stranger: did nothing visible")

        // Every call was rolled back.
        let roles: [String] = try conn.query("select role from public.members order by user_id").rows.map {
            try $0.decode(0)
        }
        XCTAssertEqual(roles, ["owner", "member"])
    }

    func testAFunctionThatNeverReturnsIsCutOff() throws {
        let db = try StandIn.makeDatabase(prefix: "probe")
        let conn = try PostgresConnection(db.connectionString)
        _ = try conn.runScript(
            """
            create function public.spin() returns void language sql security definer set search_path = ''
              as $$ select pg_catalog.pg_sleep(60) $$;
            revoke execute on function public.spin() from public;
            grant execute on function public.spin() to anon;
            """)
        let started = Date()
        let outcomes = try FunctionProbe.run(conn, exposedSchemas: ["public"])
        XCTAssertEqual(outcomes.map(\.caller), ["anon"])
        XCTAssertNil(outcomes.first?.refused)
        XCTAssertEqual(outcomes.first?.sentence, "public.spin() as anon: not covered: did not end within 5 s (cut off)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }
}
