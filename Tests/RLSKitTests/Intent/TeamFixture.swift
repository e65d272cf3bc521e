import Foundation
import Postgres
import TestSupport

@testable import RLSKit

/// A team app: teams, memberships with an owner/member role, and team projects. The creator of
/// a team becomes its owner through a trigger; helpers are SECURITY DEFINER so that policies on
/// team_members can ask about team_members.
enum TeamFixture {
    static let schema = """
        create type public.team_role as enum ('owner', 'member');
        create table public.teams (
          id uuid primary key default gen_random_uuid(),
          name text not null,
          created_by uuid not null default auth.uid() references auth.users (id)
        );
        create table public.team_members (
          team_id uuid not null references public.teams (id) on delete cascade,
          user_id uuid not null references auth.users (id) on delete cascade,
          role public.team_role not null default 'member',
          primary key (team_id, user_id)
        );
        create table public.projects (
          id bigint generated always as identity primary key,
          team_id uuid not null references public.teams (id) on delete cascade,
          name text not null
        );
        create function public.is_member(t uuid) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.team_members where team_id = t and user_id = (select auth.uid())) $$;
        create function public.has_role(t uuid, r public.team_role) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.team_members where team_id = t and user_id = (select auth.uid()) and role = r) $$;
        create function public.add_creator() returns trigger language plpgsql security definer set search_path = '' as $$
          begin insert into public.team_members (team_id, user_id, role) values (new.id, new.created_by, 'owner'); return new; end $$;
        create trigger teams_creator after insert on public.teams for each row execute function public.add_creator();
        alter table public.teams enable row level security;
        alter table public.team_members enable row level security;
        alter table public.projects enable row level security;
        grant select, insert, update, delete on public.teams, public.team_members, public.projects to authenticated;
        grant all on public.teams, public.team_members, public.projects to service_role;
        create policy teams_read on public.teams for select to authenticated using (public.is_member(id));
        create policy teams_create on public.teams for insert to authenticated with check (created_by = (select auth.uid()));
        create policy teams_edit on public.teams for update to authenticated using (public.has_role(id, 'owner'));
        create policy teams_drop on public.teams for delete to authenticated using (public.has_role(id, 'owner'));
        create policy members_read on public.team_members for select to authenticated using (public.is_member(team_id));
        create policy members_add on public.team_members for insert to authenticated with check (public.has_role(team_id, 'owner'));
        create policy members_role on public.team_members for update to authenticated
          using (public.has_role(team_id, 'owner') and user_id <> (select auth.uid())) with check (public.has_role(team_id, 'owner'));
        create policy members_remove on public.team_members for delete to authenticated
          using ((public.has_role(team_id, 'owner') and user_id <> (select auth.uid())) or (user_id = (select auth.uid()) and role = 'member'));
        create policy projects_read on public.projects for select to authenticated using (public.is_member(team_id));
        create policy projects_add on public.projects for insert to authenticated with check (public.is_member(team_id));
        create policy projects_edit on public.projects for update to authenticated using (public.is_member(team_id)) with check (public.is_member(team_id));
        create policy projects_drop on public.projects for delete to authenticated using (public.has_role(team_id, 'owner'));
        """

    static let access = """
        members public.team_members
          group team_id
          user user_id
          role role
          roles owner member
          read members
          add members with role owner
          remove members with role owner
          leave members
          change-role members with role owner

        table public.teams
          group id
          read members
          insert signed-in
          update members with role owner
          delete members with role owner

        table public.projects
          group team_id
          read members
          insert members
          update members
          delete members with role owner
        """

    /// The team schema plus `breakage` on a stand-in database, tested with `access`.
    static func run(breakage: String = "", access: String = TeamFixture.access) throws -> TestReport {
        let db = try StandIn.makeDatabase(prefix: "team")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(schema + "\n" + breakage)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "team.rls")]
        return try Harness.run(input, options: HarnessOptions(), on: db.connectionString)
    }
}
