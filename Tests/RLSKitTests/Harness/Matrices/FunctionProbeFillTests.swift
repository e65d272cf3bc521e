import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Arguments the probe used to leave out (enums, domains, defaults), callers it used to miss
/// (G1's owner), and argument choices of its own that made false verdicts.
final class FunctionProbeFillTests: XCTestCase {
    static let schema = """
        create domain public.team_title as text check (length(value) between 1 and 80);
        create table public.team_invites (
          id bigint generated always as identity primary key,
          team_id uuid not null references public.teams (id) on delete cascade,
          email text not null,
          role public.team_role not null default 'member'
        );
        alter table public.team_invites enable row level security;
        grant select on public.team_invites to authenticated;
        grant all on public.team_invites to service_role;
        create policy invites_read on public.team_invites for select to authenticated
          using (public.has_role(team_id, 'owner'));
        -- Unrelated to invitations: a text role no team_role takes.
        create table public.staff_notes (label text, role text);
        insert into public.staff_notes values ('night shift', 'auditor');

        -- An enum without a default: any caller sets anyone's role in any team.
        create function public.set_member_role(p_team_id uuid, p_user_id uuid, p_new_role public.team_role)
          returns void language sql security definer set search_path = '' as $$
          update public.team_members m set role = p_new_role where m.team_id = p_team_id and m.user_id = p_user_id $$;
        -- A domain: renames any team.
        create function public.retitle_team(p_team_id uuid, p_title public.team_title)
          returns void language sql security definer set search_path = '' as $$
          update public.teams t set name = p_title where t.id = p_team_id $$;
        -- A type the probe has no value for, with a default: the default is used.
        create function public.purge_projects(p_team_id uuid, p_before timestamptz default now())
          returns void language sql security definer set search_path = '' as $$
          delete from public.projects p where p.team_id = p_team_id $$;
        -- Text with a default, before the team: the default is used, the team passed by name.
        create function public.tag_team(p_tag text default 'core', p_team_id uuid default null)
          returns void language plpgsql security definer set search_path = '' as $$
        begin
          if p_tag is distinct from 'core' then raise exception 'unknown tag'; end if;
          update public.teams t set name = t.name || ' ' || p_tag where t.id = p_team_id;
        end $$;
        -- An array and a timestamp, no defaults: the empty array and a constant date.
        create function public.tag_team_items(p_team_id uuid, p_labels text[], p_due timestamptz)
          returns void language sql security definer set search_path = '' as $$
          update public.teams t set name = t.name || '+' where t.id = p_team_id $$;
        create function public.stamp_team(p_team_id uuid, p_on date, p_ids bigint[], p_every interval)
          returns void language sql security definer set search_path = '' as $$
          update public.teams t set name = t.name || ' ' || p_on::text where t.id = p_team_id $$;
        -- No value and no default: cannot be called.
        create function public.schedule_purge(p_team_id uuid, p_at point)
          returns void language plpgsql security definer set search_path = '' as $$ begin null; end $$;
        -- Deletes a team when the caller owns any team.
        create function public.drop_team(p_team_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          if not exists (select 1 from public.team_members m where m.user_id = auth.uid() and m.role = 'owner') then
            raise exception 'owners only';
          end if;
          delete from public.teams t where t.id = p_team_id;
        end $$;
        -- The team's owner removes a member, never the owner.
        create function public.kick(p_team_id uuid, p_user_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          if not public.has_role(p_team_id, 'owner') then raise exception 'owners only'; end if;
          if exists (select 1 from public.team_members m where m.team_id = p_team_id and m.user_id = p_user_id
                     and m.role = 'owner') then
            raise exception 'cannot remove the owner';
          end if;
          delete from public.team_members m where m.team_id = p_team_id and m.user_id = p_user_id;
        end $$;
        -- Invites into any team: the role is text, cast to the enum.
        create function public.invite_as(p_team_id uuid, p_email text, p_role text) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          insert into public.team_invites (team_id, email, role) values (p_team_id, p_email, p_role::public.team_role);
        end $$;
        -- Runs under the caller's policies: the probe leaves it to the table checks.
        create function public.team_names() returns setof text language sql stable
          set search_path = '' as $$ select t.name from public.teams t $$;
        -- No API role may execute these.
        create function public.audit_teams() returns bigint language sql stable
          security definer set search_path = '' as $$ select count(*) from public.teams $$;
        create function public.wipe_teams() returns void language sql
          security definer set search_path = '' as $$ delete from public.teams $$;
        revoke execute on function public.audit_teams(), public.wipe_teams() from public, anon, authenticated;
        -- A text argument no column names, cast to the enum: the probe's 'probe' fails the cast.
        create function public.set_level(p_team_id uuid, p_level text) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          update public.team_members m set role = p_level::public.team_role where m.team_id = p_team_id;
        end $$;
        """

    static let invites = """

        table public.team_invites
          group team_id
          read members with role owner
          write nobody
        """

    static let declared = """

        function public.set_member_role(uuid, uuid, public.team_role) callable-by members with role owner
        function public.schedule_purge(uuid, point) callable-by members
        function public.kick(uuid, uuid) callable-by members with role owner
        function public.invite_as(uuid, text, text) callable-by members with role owner
        """

    var access: String { TeamFixture.access + Self.invites + Self.declared }

    func line(of prefix: String) -> Int? {
        access.components(separatedBy: "\n").firstIndex { $0.hasPrefix(prefix) }.map { $0 + 1 }
    }

    func calls(_ access: String, allowUntested: Bool = false) throws -> [TestOutcome] {
        let db = try StandIn.makeDatabase(prefix: "fpf")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(TeamFixture.schema + "\n" + Self.schema)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "team.rls")]
        var options = HarnessOptions()
        options.allowUntested = allowUntested
        return try Harness.run(input, options: options, on: db.connectionString).outcomes.filter {
            $0.suite == FunctionProbeRequest.suite
        }
    }

    func outcome(_ calls: [TestOutcome], _ name: String) throws -> TestOutcome {
        try XCTUnwrap(calls.first { $0.name == name }, name)
    }

    func failing(_ calls: [TestOutcome], _ function: String) -> Set<String> {
        Set(calls.filter { $0.isFailure && $0.name.hasPrefix(function + " ") }.map(\.name))
    }

    func testArgumentsOfEveryKindAreFilledOrNotCovered() throws {
        let calls = try calls(access)
        let strangers = ["anon", "outsider", "G1 owner", "G1 member"]
        // An enum (its first label), a domain (its base type), a default, arrays, dates: each is called.
        for f in [
            "public.set_member_role(uuid, uuid, team_role)", "public.retitle_team(uuid, team_title)",
            "public.purge_projects(uuid, timestamp with time zone)", "public.tag_team(text, uuid)",
            "public.tag_team_items(uuid, text[], timestamp with time zone)",
            "public.stamp_team(uuid, date, bigint[], interval)",
        ] {
            XCTAssertEqual(failing(calls, f), Set(strangers.map { "\(f) called as \($0)" }), f)
            XCTAssertEqual(try outcome(calls, "\(f) called as G2 owner").status, .passed, f)
        }
        // Declared with a schema-qualified type: the declaration is the one it matches.
        let set = try outcome(calls, "public.set_member_role(uuid, uuid, team_role) called as outsider")
        XCTAssertEqual(set.location?.line, line(of: "function public.set_member_role"))
        let schedule = try outcome(calls, "public.schedule_purge(uuid, point) not covered")
        XCTAssertEqual(schedule.status, .error)
        XCTAssertEqual(
            schedule.message,
            "not covered: public.schedule_purge(uuid, point): argument p_at of type point cannot be filled (and has no default) (or --allow-untested to skip it)"
        )
        XCTAssertEqual(schedule.location?.line, line(of: "function public.schedule_purge"))
        XCTAssertFalse(
            calls.contains { $0.name.hasPrefix("public.schedule_purge(uuid, point) called") })
    }

    func testUntestedFunctionsAreSkippedWhenAllowedOrUndeclared() throws {
        let skipped = try outcome(
            try calls(access, allowUntested: true), "public.schedule_purge(uuid, point) not covered")
        XCTAssertEqual(skipped.status, .skipped)
        let undeclared = try outcome(
            try calls(TeamFixture.access + Self.invites),
            "public.schedule_purge(uuid, point) not covered")
        XCTAssertEqual(undeclared.status, .skipped)
        XCTAssertEqual(
            undeclared.message,
            "not covered: public.schedule_purge(uuid, point): argument p_at of type point cannot be filled (and has no default) (not declared)"
        )
        XCTAssertNil(undeclared.location)
    }

    func testDeclaredFunctionsTheProbeNeverCallsAreNotCovered() throws {
        let calls = try calls(
            access + """

                function public.team_names() callable-by members
                function public.audit_teams() callable-by members
                function public.wipe_teams() callable-by nobody
                """)
        let invoker = try outcome(calls, "public.team_names() not covered")
        XCTAssertEqual(invoker.status, .error)
        XCTAssertEqual(
            invoker.message,
            "not covered: public.team_names(): it is SECURITY INVOKER: the probe calls SECURITY DEFINER functions only (an invoker runs under the caller's own policies, which the table checks test) (or --allow-untested to skip it)"
        )
        XCTAssertEqual(invoker.location?.line, access.components(separatedBy: "\n").count + 1)
        let revoked = try outcome(calls, "public.audit_teams() not covered")
        XCTAssertEqual(
            revoked.message,
            "not covered: public.audit_teams(): neither anon nor authenticated may execute it (or --allow-untested to skip it)"
        )
        // Nobody may, and no API role can: the grants prove the line.
        XCTAssertEqual(
            try outcome(calls, "public.wipe_teams() cannot be called by anon or authenticated").status, .passed)
    }

    func testAnotherGroupsOwnerIsACaller() throws {
        let calls = try calls(access)
        XCTAssertEqual(failing(calls, "public.drop_team(uuid)"), ["public.drop_team(uuid) called as G1 owner"])
        let drop = try outcome(calls, "public.drop_team(uuid) called as G1 owner")
        XCTAssertEqual(
            drop.message,
            "functions · call public.drop_team(uuid) · as G1 owner, with arguments from G2's rows: expected: no write (not declared, so callable by members: only members of the group whose rows it is given; declare 'function public.drop_team(uuid) callable-by WHO' if that is meant); got: wrote public.team_members: 2 deleted, public.teams: 1 deleted"
        )
        // No access-file line declares it: none is named.
        XCTAssertNil(drop.location)
    }

    func testAUserArgumentIsAnotherMemberOfTheGroup() throws {
        let calls = try calls(access)
        XCTAssertEqual(failing(calls, "public.kick(uuid, uuid)"), [])
        XCTAssertEqual(try outcome(calls, "public.kick(uuid, uuid) called as G2 owner").status, .passed)
    }

    func testATextArgumentTakesItsValueFromTheTableTheBodyWrites() throws {
        let calls = try calls(access)
        let f = "public.invite_as(uuid, text, text)"
        XCTAssertEqual(
            failing(calls, f), Set(["anon", "outsider", "G1 owner", "G1 member"].map { "\(f) called as \($0)" }))
        let outsider = try outcome(calls, "\(f) called as outsider")
        XCTAssertTrue(
            outsider.message?.contains("wrote public.team_invites: 1 inserted") == true, outsider.message ?? "")
        XCTAssertEqual(try outcome(calls, "\(f) called as G2 owner").status, .passed)
    }

    func testACastFailureOfTheProbesOwnValueIsNotAVerdict() throws {
        let calls = try calls(access)
        let level = try outcome(calls, "public.set_level(uuid, text) called as G2 owner")
        XCTAssertEqual(level.status, .skipped)
        XCTAssertEqual(
            level.message,
            "not covered: public.set_level(uuid, text) as G2 owner: argument p_level could not be filled (invalid input value for enum public.team_role: \"probe\") (not declared)"
        )
        // Declared, it is a failure: nobody tested what the line promises.
        let declared = try outcome(
            try self.calls(access + "\nfunction public.set_level(uuid, text) callable-by members"),
            "public.set_level(uuid, text) called as outsider")
        XCTAssertEqual(declared.status, .error)
        XCTAssertTrue(declared.message?.hasSuffix("(or --allow-untested to skip it)") == true, declared.message ?? "")
    }
}
