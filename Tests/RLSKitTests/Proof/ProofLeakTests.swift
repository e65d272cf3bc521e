import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A definer function's rows count as leaked only by values anon cannot read directly: a key a
/// private row holds of a public one (the room a booking is for) leaks nothing, the private
/// row's own key or text does.
final class ProofLeakTests: XCTestCase {
    /// Rooms anyone reads, bookings only their owner reads; the public profile names the user.
    static let schema = """
        create table public.profiles (id uuid primary key references auth.users on delete cascade, handle text);
        create table public.rooms (id uuid primary key default gen_random_uuid(), label text);
        create table public.bookings (id uuid primary key default gen_random_uuid(),
          room_id uuid not null references public.rooms, owner uuid references auth.users, note text);
        alter table public.profiles enable row level security;
        alter table public.rooms enable row level security;
        alter table public.bookings enable row level security;
        create policy "profiles are public" on public.profiles for select using (true);
        create policy "rooms are public" on public.rooms for select using (true);
        create policy "own bookings" on public.bookings for select to authenticated using (owner = (select auth.uid()));
        grant select on public.profiles, public.rooms, public.bookings to anon, authenticated;
        create function public.on_signup() returns trigger language plpgsql security definer set search_path = '' as $$
          begin insert into public.profiles (id) values (new.id); return new; end $$;
        create trigger on_signup after insert on auth.users for each row execute function public.on_signup();
        """

    static func function(_ body: String, returns: String = "setof text") -> String {
        "create function public.probe() returns \(returns) language sql security definer set search_path = ''"
            + " as $$ \(body) $$;\n"
    }

    func testReturningTheBookingsTextIsProven() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema + Self.function("select b.note from public.bookings b join public.rooms r on r.id = b.room_id"))
        ProofFixture.assertProven(f, actor: "anon", effect: "returned another user's rows")
    }

    func testReturningTheBookingsOwnKeyIsProven() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema + Self.function("select b.id::text from public.bookings b"))
        ProofFixture.assertProven(f, actor: "anon", effect: "returned another user's rows")
    }

    func testReturningThePublicRoomsABookingNamesIsDemoted() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema + Self.function("select distinct b.room_id::text from public.bookings b"))
        ProofFixture.assertDemoted(f, "returned no other user's row")
    }

    func testReturningAUserAPublicProfileNamesIsDemoted() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema
                + Self.function(
                    "select p.id::text from public.profiles p where exists (select 1 from public.bookings b where b.owner = p.id)"
                ))
        ProofFixture.assertDemoted(f, "returned no other user's row")
    }
}

/// The prover on a fresh database: the findings of one lint, nothing left behind.
enum ProofFixture {
    static func prove(_ lint: String, _ sql: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> [Finding]
    {
        let db = try StandIn.makeDatabase(prefix: "proof")
        defer {
            db.conn.close()
            TestServer.drop(db.name)
        }
        _ = try db.conn.runScript(sql)
        let findings = try Auditor.run(db.conn, exposedSchemas: ["public"]).findings.filter { $0.lint == lint }
        XCTAssertFalse(findings.isEmpty, "\(lint) does not fire on the fixture", file: file, line: line)
        let users: Int64 = try db.conn.query("select count(*) from auth.users").rows[0].decode(0)
        let result = try Prover.prove(findings, on: db.connectionString, ownsDatabase: true)
        XCTAssertEqual(
            try db.conn.query("select count(*) from auth.users").rows[0].decode(0), users, "users left", file: file,
            line: line)
        return result.findings
    }

    static func assertProven(
        _ f: [Finding], actor: String, effect: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let p = f.first?.proof else { return XCTFail("no proof", file: file, line: line) }
        XCTAssertEqual(p.outcome, .proven, p.line, file: file, line: line)
        XCTAssertEqual(f.first?.level, .error, file: file, line: line)
        XCTAssertTrue(p.actor.hasPrefix(actor), p.line, file: file, line: line)
        XCTAssertTrue(p.effect.hasPrefix(effect), p.line, file: file, line: line)
        XCTAssertGreaterThan(p.rows, 0, file: file, line: line)
    }

    static func assertDemoted(_ f: [Finding], _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let p = f.first?.proof else { return XCTFail("no proof", file: file, line: line) }
        XCTAssertEqual(p.outcome, .notProven, p.line, file: file, line: line)
        XCTAssertEqual(f.first?.level, .warn, file: file, line: line)
        XCTAssertTrue(p.reason.contains(reason), "\(p.reason) does not say \(reason)", file: file, line: line)
    }
}
