import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// What a call did that no table's counts show: another user's rows recognised by any form
/// of what identifies them; row security, grants and policies changed; effects a rollback does
/// not undo, released and said; bodies that would reach past the transaction never called.
final class FunctionProbeEffectsTests: XCTestCase {
    static let setup = """
        insert into auth.users (id, email, phone) values
          ('11111111-1111-1111-1111-111111111111', 'owner@example.test', '+15550001'),
          ('22222222-2222-2222-2222-222222222222', 'member@example.test', null);
        create table public.notes (id bigint primary key, body text);
        alter table public.notes enable row level security;
        -- Other users found by their id in upper case, without hyphens, or by their email.
        create function public.shout() returns table (who text) language sql security definer set search_path = ''
          as $$ select upper(id::text) from auth.users $$;
        create function public.compact() returns table (who text) language sql security definer set search_path = ''
          as $$ select replace(id::text, '-', '') from auth.users $$;
        create function public.contacts() returns table (who text) language sql security definer set search_path = ''
          as $$ select email::text from auth.users $$;
        create function public.nothing() returns table (who text) language sql security definer set search_path = ''
          as $$ select 'nobody'::text $$;
        -- Catalog changes.
        create function public.open_notes() returns void language plpgsql security definer set search_path = ''
          as $$ begin alter table public.notes disable row level security; end $$;
        create function public.share_notes() returns void language plpgsql security definer set search_path = ''
          as $$ begin grant select on public.notes to anon; end $$;
        create function public.loosen() returns void language plpgsql security definer set search_path = ''
          as $$ begin create policy everyone on public.notes for select using (true); end $$;
        -- A lock a rollback keeps.
        create function public.hold() returns void language sql security definer set search_path = ''
          as $$ select pg_catalog.pg_advisory_lock(42) $$;
        -- Bodies that reach past the transaction: never called.
        create function public.export_it() returns void language plpgsql security definer set search_path = ''
          as $$ begin perform pg_catalog.lo_export(0, '/tmp/x'); end $$;
        create function public.end_them() returns void language plpgsql security definer set search_path = ''
          as $$ begin perform pg_catalog.pg_terminate_backend(pid) from pg_catalog.pg_stat_activity; end $$;
        grant execute on all functions in schema public to anon;
        """

    func testEffectsBeyondTableCountsAreSeen() throws {
        let db = try StandIn.makeDatabase(prefix: "effects")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        _ = try conn.runScript(Self.setup)
        let outcomes = try FunctionProbe.run(conn, exposedSchemas: ["public"])
        func anon(_ name: String) throws -> FunctionProbe.Outcome {
            try XCTUnwrap(outcomes.first { $0.function == "public.\(name)()" && $0.caller == "anon" }, name)
        }
        for name in ["shout", "compact", "contacts"] {
            XCTAssertEqual(try anon(name).othersRows, 2, name)
            XCTAssertTrue(try anon(name).isFinding, name)
        }
        XCTAssertEqual(try anon("nothing").othersRows, 0)
        XCTAssertFalse(try anon("nothing").isFinding)

        XCTAssertEqual(try anon("open_notes").catalogChanges, ["row level security off on notes"])
        XCTAssertTrue(try anon("open_notes").sentence.contains("changed the catalog: row level security off"))
        XCTAssertTrue(try anon("share_notes").catalogChanges.first?.hasPrefix("grants on notes: ") ?? false)
        XCTAssertTrue(try anon("loosen").catalogChanges.first?.hasPrefix("policy everyone on notes") ?? false)
        for name in ["open_notes", "share_notes", "loosen"] { XCTAssertTrue(try anon(name).isFinding, name) }

        XCTAssertEqual(try anon("hold").lasting.count, 1)
        XCTAssertTrue(try anon("hold").sentence.contains("session advisory lock"))
        XCTAssertEqual(
            try conn.query("select count(*)::int from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()")
                .rows[0].decode(0) as Int, 0)

        XCTAssertNil(outcomes.first { $0.function.hasPrefix("public.export_it") })
        XCTAssertNil(outcomes.first { $0.function.hasPrefix("public.end_them") })
        // Nothing survives: row security is still on, anon still has no grant.
        XCTAssertTrue(
            try conn.query("select relrowsecurity from pg_class where oid = 'public.notes'::regclass").rows[0].decode(0)
                as Bool)
        XCTAssertFalse(
            try conn.query("select has_table_privilege('anon', 'public.notes', 'select')").rows[0].decode(0) as Bool)
    }

    func testTheLeakPatternEscapesAndCoversForms() {
        let p = FunctionProbe.leakPattern(["11111111-1111-1111-1111-111111111111", "a.b+c@example.test"])
        XCTAssertTrue(p.contains("11111111111111111111111111111111"))
        XCTAssertTrue(p.contains("a\\.b\\+c@example\\.test"))
        XCTAssertEqual(FunctionProbe.leakPattern([]), "^$x")
    }
}
