import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Files whose tables all use groups are probed too: anon, the outsider, G1's owner and plain
/// member, and G2's owner call each function with G2's rows (the group's id for `team_id`).
final class FunctionProbeGroupTests: XCTestCase {
    static let functions = """
        -- Deletes any team.
        create function public.delete_team(team_id uuid) returns void language sql
          security definer set search_path = '' as $$ delete from public.teams t where t.id = delete_team.team_id $$;
        -- Only the team's owner may.
        create function public.delete_own_team(team_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          if not exists (select 1 from public.team_members m where m.team_id = delete_own_team.team_id
                         and m.user_id = auth.uid() and m.role = 'owner') then
            raise exception 'only the team owner';
          end if;
          delete from public.teams t where t.id = delete_own_team.team_id;
        end $$;
        -- Any team's projects.
        create function public.team_projects(p_team_id uuid) returns setof public.projects language sql stable
          security definer set search_path = '' as $$ select * from public.projects p where p.team_id = p_team_id $$;
        -- Joins any team.
        create function public.join_team(team_id uuid) returns void language sql
          security definer set search_path = '' as $$
          insert into public.team_members (team_id, user_id) values (join_team.team_id, auth.uid()) $$;
        -- A new team of the caller's own: a write, to no one else's group.
        create function public.create_team(name text) returns uuid language sql
          security definer set search_path = '' as $$
          insert into public.teams (name, created_by) values (create_team.name, auth.uid()) returning id $$;
        -- Removes anyone from any team.
        create function public.remove_member(team_id uuid, user_id uuid) returns void language sql
          security definer set search_path = '' as $$
          delete from public.team_members m where m.team_id = remove_member.team_id and m.user_id = remove_member.user_id $$;
        -- Switched off for everyone.
        create function public.archive_team(team_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$ begin raise exception 'archiving is disabled'; end $$;
        """

    func calls(_ access: String = TeamFixture.access) throws -> [TestOutcome] {
        let report = try TeamFixture.run(breakage: Self.functions, access: access)
        return report.outcomes.filter { $0.suite == FunctionProbeRequest.suite }
    }

    func testGroupFunctionsAreCalledWithTheOtherGroupsRows() throws {
        let calls = try calls()
        XCTAssertEqual(
            Set(calls.filter(\.isFailure).map(\.name)),
            [
                "public.delete_team(uuid) called as anon", "public.delete_team(uuid) called as outsider",
                "public.delete_team(uuid) called as G1 owner", "public.delete_team(uuid) called as G1 member",
                "public.team_projects(uuid) called as anon", "public.team_projects(uuid) called as outsider",
                "public.team_projects(uuid) called as G1 owner", "public.team_projects(uuid) called as G1 member",
                "public.join_team(uuid) called as outsider", "public.join_team(uuid) called as G1 owner",
                "public.join_team(uuid) called as G1 member",
                "public.remove_member(uuid, uuid) called as anon",
                "public.remove_member(uuid, uuid) called as outsider",
                "public.remove_member(uuid, uuid) called as G1 owner",
                "public.remove_member(uuid, uuid) called as G1 member",
            ])
        let delete = try XCTUnwrap(calls.first { $0.name == "public.delete_team(uuid) called as G1 member" })
        XCTAssertTrue(
            delete.message?.hasPrefix(
                "functions · call public.delete_team(uuid) · as G1 member, with arguments from G2's rows: expected: no write (not declared"
            ) == true, delete.message ?? "")
        XCTAssertTrue(
            delete.message?.contains(
                "(not declared, so callable by members: only members of the group whose rows it is given; declare 'function public.delete_team(uuid) callable-by WHO' if that is meant); got: wrote public.team_members: "
            ) == true, delete.message ?? "")
        // user_id is G2's other member (the user in both groups): its membership is what goes.
        let remove = try XCTUnwrap(calls.first { $0.name == "public.remove_member(uuid, uuid) called as outsider" })
        XCTAssertTrue(remove.message?.contains("wrote public.team_members: 1 deleted") == true, remove.message ?? "")
        let rows = try XCTUnwrap(calls.first { $0.name == "public.team_projects(uuid) called as outsider" })
        XCTAssertTrue(rows.message?.contains("returned 1 row of another group") == true, rows.message ?? "")
        // G2's owner acts on its own group; a new team of one's own is nobody else's.
        for name in [
            "public.delete_team(uuid) called as G2 owner", "public.team_projects(uuid) called as G2 owner",
            "public.create_team(text) called as outsider", "public.create_team(text) called as G1 member",
            "public.delete_own_team(uuid) called as G1 member", "public.delete_own_team(uuid) called as G2 owner",
        ] {
            XCTAssertEqual(calls.first { $0.name == name }?.status, .passed, name)
        }
    }

    func testCallableByMembersWithARole() throws {
        let calls = try calls(
            TeamFixture.access + """

                function public.delete_own_team(uuid) callable-by members with role owner
                function public.delete_team(uuid) callable-by members with role owner
                function public.archive_team(uuid) callable-by members with role owner
                function public.team_projects(uuid) callable-by members
                function public.join_team(uuid) callable-by signed-in
                """)
        XCTAssertEqual(
            Set(calls.filter(\.isFailure).map(\.name)),
            [
                "public.delete_team(uuid) called as anon", "public.delete_team(uuid) called as outsider",
                "public.delete_team(uuid) called as G1 owner", "public.delete_team(uuid) called as G1 member",
                "public.team_projects(uuid) called as anon", "public.team_projects(uuid) called as outsider",
                "public.team_projects(uuid) called as G1 owner", "public.team_projects(uuid) called as G1 member",
                "public.archive_team(uuid) called as G2 owner",
                "public.remove_member(uuid, uuid) called as anon",
                "public.remove_member(uuid, uuid) called as outsider",
                "public.remove_member(uuid, uuid) called as G1 owner",
                "public.remove_member(uuid, uuid) called as G1 member",
            ])
        let archive = try XCTUnwrap(calls.first { $0.name == "public.archive_team(uuid) called as G2 owner" })
        XCTAssertEqual(
            archive.message,
            "functions · call public.archive_team(uuid) · as G2 owner, with arguments from G2's rows: expected: the call goes through (callable-by members with role owner); got: refused (archiving is disabled)"
        )
        XCTAssertEqual(archive.location?.line, TeamFixture.access.components(separatedBy: "\n").count + 3)
    }

    func testBigintGroupKeys() throws {
        let db = try StandIn.makeDatabase(prefix: "fpg")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(
            """
            create table public.orgs (id bigint generated by default as identity primary key, name text not null);
            create table public.org_members (
              org_id bigint not null references public.orgs (id) on delete cascade,
              user_id uuid not null references auth.users (id) on delete cascade,
              primary key (org_id, user_id)
            );
            alter table public.orgs enable row level security;
            alter table public.org_members enable row level security;
            grant select on public.orgs, public.org_members to authenticated;
            grant all on public.orgs, public.org_members to service_role;
            -- Renames any org.
            create function public.rename_org(org_id bigint, new_name text) returns void language sql
              security definer set search_path = '' as $$
              update public.orgs o set name = new_name where o.id = rename_org.org_id $$;
            """)
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse(
                """
                members public.org_members
                  group org_id
                  user user_id
                  read members
                  add nobody
                  remove nobody
                  leave nobody

                table public.orgs
                  group id
                  read members
                  write nobody
                """, path: "orgs.rls")
        ]
        let calls = try Harness.run(input, options: HarnessOptions(), on: db.connectionString).outcomes.filter {
            $0.suite == FunctionProbeRequest.suite
        }
        XCTAssertEqual(
            Set(calls.filter(\.isFailure).map(\.name)),
            [
                "public.rename_org(bigint, text) called as anon", "public.rename_org(bigint, text) called as outsider",
                "public.rename_org(bigint, text) called as G1 member",
            ])
        XCTAssertEqual(
            calls.first { $0.name == "public.rename_org(bigint, text) called as G2 member" }?.status, .passed)
    }
}
