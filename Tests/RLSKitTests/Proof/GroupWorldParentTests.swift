import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Groups whose own rows, or whose memberships, need parent rows (`clubs.created_by` →
/// profiles → auth.users; `club_members.plan_id` → plans): the inferred attack seeds those
/// parents before the groups and memberships, so every table is attacked.
final class GroupWorldParentTests: XCTestCase {
    /// Profiles made at sign-up, clubs and their members, posts in a club. `clubOwner` and
    /// `memberPlan` are spliced into clubs and club_members.
    static func schema(clubOwner: String, memberPlan: String) -> String {
        """
        create table public.profiles (id uuid primary key references auth.users (id) on delete cascade,
          nickname text);
        create function public.make_profile() returns trigger language plpgsql security definer
          set search_path = '' as $$ begin
          insert into public.profiles (id) values (new.id) on conflict do nothing; return new; end $$;
        create trigger make_profile after insert on auth.users for each row execute function public.make_profile();
        create table public.plans (id uuid primary key default gen_random_uuid(), title text not null unique,
          made_by uuid not null references public.profiles (id));
        create table public.clubs (id uuid primary key default gen_random_uuid(), name text not null\(clubOwner));
        create table public.club_members (club_id uuid not null references public.clubs (id) on delete cascade,
          user_id uuid not null references public.profiles (id) on delete cascade,
          role text not null default 'member' check (role in ('owner', 'member'))\(memberPlan),
          primary key (club_id, user_id));
        create function public.in_club(c uuid) returns boolean language sql stable security definer
          set search_path = '' as $$
          select exists (select 1 from public.club_members where club_id = c and user_id = (select auth.uid())) $$;
        create table public.club_posts (id uuid primary key default gen_random_uuid(),
          club_id uuid not null references public.clubs (id) on delete cascade, body text not null);
        alter table public.profiles enable row level security;
        alter table public.plans enable row level security;
        alter table public.clubs enable row level security;
        alter table public.club_members enable row level security;
        alter table public.club_posts enable row level security;
        grant select on public.profiles, public.plans, public.clubs, public.club_members to authenticated;
        grant select, insert, update, delete on public.club_posts to authenticated;
        grant all on public.profiles, public.plans, public.clubs, public.club_members, public.club_posts
          to service_role;
        create policy "own profile" on public.profiles for select to authenticated using (id = (select auth.uid()));
        create policy "own plans" on public.plans for select to authenticated using (made_by = (select auth.uid()));
        create policy "members read clubs" on public.clubs for select to authenticated using (public.in_club(id));
        create policy "members read members" on public.club_members for select to authenticated
          using (public.in_club(club_id));
        create policy "members use posts" on public.club_posts for all to authenticated
          using (public.in_club(club_id)) with check (public.in_club(club_id));
        """
    }

    static let createdBy = ",\n  created_by uuid not null references public.profiles (id)"
    static let plan = ",\n  plan_id uuid not null references public.plans (id)"

    func assertAttacked(_ sql: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try attack(sql)
        let seeding = r.notes.filter {
            $0.contains("seeding rows") || $0.contains("club") && $0.contains("not attacked")
        }
        XCTAssertEqual(seeding, [], file: file, line: line)
        for t in ["public.clubs", "public.club_posts"] {
            XCTAssertTrue(r.tables.contains(t), "\(t) not attacked: \(r.tables) \(r.notes)", file: file, line: line)
        }
        XCTAssertEqual(r.covered, r.tables.count, "\(r.notes)", file: file, line: line)
        XCTAssertEqual(r.findings.map(\.detail), [], file: file, line: line)
    }

    /// The group row's NOT NULL creator references profiles, which reference auth.users.
    func testGroupTableWhoseCreatorIsAProfile() throws {
        try assertAttacked(Self.schema(clubOwner: Self.createdBy, memberPlan: ""))
    }

    /// A membership with a NOT NULL key to plans, a table that needs a parent (profiles) of its own.
    func testMembershipWithAKeyToATableWithParents() throws {
        try assertAttacked(Self.schema(clubOwner: Self.createdBy, memberPlan: Self.plan))
    }

    /// No parents anywhere: seeded before, still seeded.
    func testGroupsWithoutParents() throws {
        try assertAttacked(Self.schema(clubOwner: "", memberPlan: ""))
    }

    /// A unit's transaction runs with JIT off: compiling a plan of policies nested through other
    /// tables' policies took seconds per check, and each unit runs hundreds of checks.
    func testUnitsRunWithJITOff() throws {
        let db = try StandIn.makeDatabase(prefix: "nojit")
        defer {
            db.conn.close()
            TestServer.drop(db.name)
        }
        let at = SourceLocation(file: "t/jit.rls", line: 1)
        let probe = "select 1 / (current_setting('jit') = 'off')::int"
        let check = PolicyCheck(
            suite: "s", actor: "admin", operation: "select", name: "jit", statements: [probe],
            expectations: [.succeeds], location: at)
        let unit = HarnessUnit(suite: "s", setup: "select 1;\n", checks: [check], location: at)
        let out = try UnitRunner(conn: db.conn, skipUntested: false).run(unit)
        XCTAssertEqual(out.map(\.status), [.passed], "\(out.map { $0.message ?? "" })")
        XCTAssertEqual(try db.conn.query("select current_setting('jit')").rows[0].decode(0) as String, "on")
    }

    /// Pages of books of spaces, none owned by a user (a catalog to the attack): the chain of
    /// parents ends in a space whose owner is a profile of auth.users, which anon is not.
    static let pages = """
        create table public.profiles (id uuid primary key references auth.users (id) on delete cascade, nickname text);
        create function public.make_profile() returns trigger language plpgsql security definer
          set search_path = '' as $$ begin
          insert into public.profiles (id) values (new.id) on conflict do nothing; return new; end $$;
        create trigger make_profile after insert on auth.users for each row execute function public.make_profile();
        create table public.spaces (id uuid primary key default gen_random_uuid(), name text not null, slug text not null unique,
          owner_id uuid not null references public.profiles (id));
        create table public.space_members (id uuid primary key default gen_random_uuid(),
          space_id uuid not null references public.spaces (id) on delete cascade,
          user_id uuid not null references public.profiles (id) on delete cascade,
          role text not null default 'editor' check (role in ('owner', 'editor')), unique (space_id, user_id));
        create function public.in_space(s uuid) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.space_members where space_id = s and user_id = (select auth.uid()))
              or exists (select 1 from public.spaces where id = s and owner_id = (select auth.uid())) $$;
        create table public.books (id uuid primary key default gen_random_uuid(),
          space_id uuid not null references public.spaces (id) on delete cascade, name text not null, slug text not null,
          unique (space_id, slug));
        create table public.pages (id uuid primary key default gen_random_uuid(),
          book_id uuid not null references public.books (id) on delete cascade, title text not null);
        alter table public.profiles enable row level security;
        alter table public.spaces enable row level security;
        alter table public.space_members enable row level security;
        alter table public.books enable row level security;
        alter table public.pages enable row level security;
        grant select on public.profiles, public.spaces, public.space_members to authenticated;
        grant select, insert, update, delete on public.books, public.pages to authenticated;
        grant all on public.profiles, public.spaces, public.space_members, public.books, public.pages to service_role;
        create policy "own profile" on public.profiles for select to authenticated using (id = (select auth.uid()));
        create policy "members read spaces" on public.spaces for select to authenticated using (public.in_space(id));
        create policy "members read members" on public.space_members for select to authenticated using (public.in_space(space_id));
        create policy "members use books" on public.books for all to authenticated
          using (public.in_space(space_id)) with check (public.in_space(space_id));
        create policy "members use pages" on public.pages for all to authenticated
          using (exists (select 1 from public.books b where b.id = book_id and public.in_space(b.space_id)))
          with check (exists (select 1 from public.books b where b.id = book_id and public.in_space(b.space_id)));
        """

    func testCatalogRowWhoseParentsEndInAProfile() throws {
        let r = try attack(Self.pages)
        XCTAssertEqual(r.notes.filter { $0.contains("not attacked") }, [])
        XCTAssertTrue(r.tables.contains("public.pages"), "\(r.tables)")
        XCTAssertEqual(r.covered, r.tables.count, "\(r.notes)")
    }
}
