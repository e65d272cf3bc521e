/// Three multi-tenant apps for the inferred attack, each correct and with bugs planted. Every
/// schema has an owner table, a public profile table, a table of tokens or emails and a catalog.
enum InferredAttackFixtures {
    /// Notes: owner-only notes, public profiles with an admin flag, API keys, a catalog, a waitlist.
    static let notes = """
        create table public.profiles (
          id uuid primary key references auth.users (id), display_name text, is_admin boolean not null default false);
        create table public.notes (
          id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id), body text);
        create table public.api_keys (
          id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id), secret_key text);
        create table public.countries (id bigint generated always as identity primary key, name text);
        create table public.waitlist (id bigint generated always as identity primary key, email text);
        alter table public.profiles enable row level security;
        alter table public.notes enable row level security;
        alter table public.api_keys enable row level security;
        alter table public.countries enable row level security;
        alter table public.waitlist enable row level security;
        grant select on all tables in schema public to anon, authenticated;
        grant insert, update, delete on public.notes, public.api_keys, public.countries to authenticated;
        grant insert on public.waitlist to anon, authenticated;
        grant all on all tables in schema public to service_role;
        create policy "profiles are public" on public.profiles for select using (true);
        create policy "own profile" on public.profiles for insert to authenticated with check (id = (select auth.uid()));
        create policy "edit own profile" on public.profiles for update to authenticated
          using (id = (select auth.uid())) with check (id = (select auth.uid()));
        create policy "own notes" on public.notes for select to authenticated using (user_id = (select auth.uid()));
        create policy "write own notes" on public.notes for insert to authenticated with check (user_id = (select auth.uid()));
        create policy "delete own notes" on public.notes for delete to authenticated using (user_id = (select auth.uid()));
        create policy "own keys" on public.api_keys for select to authenticated using (user_id = (select auth.uid()));
        create policy "add own keys" on public.api_keys for insert to authenticated with check (user_id = (select auth.uid()));
        create policy "countries are public" on public.countries for select using (true);
        create policy "join the waitlist" on public.waitlist for insert to anon, authenticated with check (true);
        insert into storage.buckets (id, name, public) values ('documents', 'documents', false);
        create policy "own documents" on storage.objects for select to authenticated
          using (bucket_id = 'documents' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "upload documents" on storage.objects for insert to authenticated
          with check (bucket_id = 'documents' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "delete documents" on storage.objects for delete to authenticated
          using (bucket_id = 'documents' and (storage.foldername(name))[1] = (select auth.uid())::text);
        """

    static let notesCorrect =
        notes + """

            grant insert (id, display_name), update (display_name) on public.profiles to authenticated;
            create policy "edit own notes" on public.notes for update to authenticated
              using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
            """

    /// Planted: a key added to another's account, a stranger reads keys, the admin flag set, a catalog changed,
    /// anon reads the waitlist's emails, a note inserted in another's name, anon lists private documents.
    static let notesBuggy =
        notes + """

            grant insert, update on public.profiles to authenticated;
            create policy "edit own notes" on public.notes for update to authenticated
              using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
            create policy "keys for anyone" on public.api_keys for insert to authenticated with check (true);
            create policy "keys for all" on public.api_keys for select to authenticated using (true);
            create policy "fix countries" on public.countries for update to authenticated using (true);
            create policy "waitlist admin" on public.waitlist for select using (true);
            create policy "notes for anyone" on public.notes for insert to authenticated with check (true);
            create policy "documents by link" on storage.objects for select using (bucket_id = 'documents');
            """
    static let notesPlanted = 7

    /// Teams: an enum role, projects, invitations holding emails, a plan catalog.
    static let teams = """
        create type public.team_role as enum ('owner', 'admin', 'member');
        create table public.teams (id uuid primary key default gen_random_uuid(), name text);
        create table public.team_members (
          team_id uuid not null references public.teams (id) on delete cascade,
          user_id uuid not null references auth.users (id),
          role public.team_role not null default 'member', primary key (team_id, user_id));
        create table public.projects (
          id bigint generated always as identity primary key,
          team_id uuid not null references public.teams (id), name text);
        create table public.invitations (
          id bigint generated always as identity primary key,
          team_id uuid not null references public.teams (id), invitee_email text);
        create table public.plans (id bigint generated always as identity primary key, name text, price int);
        create table public.user_profiles (
          id uuid primary key references auth.users (id), username text);
        do $$ declare t text; begin
          foreach t in array array['teams', 'team_members', 'projects', 'invitations', 'plans', 'user_profiles'] loop
            execute format('alter table public.%I enable row level security', t);
            execute format('grant select on public.%I to anon', t);
            execute format('grant select, insert, update, delete on public.%I to authenticated', t);
            execute format('grant all on public.%I to service_role', t);
          end loop; end $$;
        create function public.is_member(t uuid) returns boolean language sql security definer stable
          set search_path = '' as $$
          select exists (select 1 from public.team_members m where m.team_id = t and m.user_id = auth.uid()) $$;
        create function public.has_role(t uuid, roles public.team_role[]) returns boolean language sql
          security definer stable set search_path = '' as $$
          select exists (select 1 from public.team_members m
                          where m.team_id = t and m.user_id = auth.uid() and m.role = any (roles)) $$;
        create function public.add_creator() returns trigger language plpgsql security definer
          set search_path = '' as $$
          begin
            if auth.uid() is not null then
              insert into public.team_members (team_id, user_id, role) values (new.id, auth.uid(), 'owner');
            end if;
            return new;
          end $$;
        create trigger add_creator after insert on public.teams for each row execute function public.add_creator();
        create policy "members read teams" on public.teams for select to authenticated using (public.is_member(id));
        create policy "create teams" on public.teams for insert to authenticated with check (true);
        create policy "owners edit teams" on public.teams for update to authenticated
          using (public.has_role(id, '{owner}'));
        create policy "owners delete teams" on public.teams for delete to authenticated
          using (public.has_role(id, '{owner}'));
        create policy "members read members" on public.team_members for select to authenticated
          using (public.is_member(team_id));
        create policy "managers add" on public.team_members for insert to authenticated
          with check (public.has_role(team_id, '{owner,admin}'));
        create policy "managers change roles" on public.team_members for update to authenticated
          using (public.has_role(team_id, '{owner,admin}')) with check (public.has_role(team_id, '{owner,admin}'));
        create policy "write projects" on public.projects for insert to authenticated with check (public.is_member(team_id));
        create policy "edit projects" on public.projects for update to authenticated
          using (public.is_member(team_id)) with check (public.is_member(team_id));
        create policy "delete projects" on public.projects for delete to authenticated using (public.is_member(team_id));
        create policy "invite" on public.invitations for insert to authenticated
          with check (public.has_role(team_id, '{owner,admin}'));
        create policy "plans are public" on public.plans for select using (true);
        create policy "profiles are public" on public.user_profiles for select using (true);
        create policy "own profile" on public.user_profiles for all to authenticated
          using (id = (select auth.uid())) with check (id = (select auth.uid()));
        insert into storage.buckets (id, name, public) values ('avatars', 'avatars', true);
        create policy "avatars are public" on storage.objects for select using (bucket_id = 'avatars');
        create policy "upload own avatar" on storage.objects for insert to authenticated
          with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "replace own avatar" on storage.objects for update to authenticated
          using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text)
          with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
        """

    static let teamsCorrect =
        teams + """

            create policy "read projects" on public.projects for select to authenticated using (public.is_member(team_id));
            create policy "managers read invitations" on public.invitations for select to authenticated
              using (public.has_role(team_id, '{owner,admin}'));
            create policy "managers remove, members leave" on public.team_members for delete to authenticated
              using (public.has_role(team_id, '{owner,admin}') or user_id = (select auth.uid()));
            create policy "delete own avatar" on storage.objects for delete to authenticated
              using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
            """

    /// Planted: any team's member reads every project, a member promotes themselves, anyone joins,
    /// a project moved into another team, a stranger reads invitations' emails, a member removes the
    /// owner, anyone deletes anyone's avatar.
    static let teamsBuggy =
        teams + """

            create policy "read projects" on public.projects for select to authenticated
              using (exists (select 1 from public.team_members m where m.user_id = (select auth.uid())));
            create policy "edit own membership" on public.team_members for update to authenticated
              using (user_id = (select auth.uid()));
            create policy "join" on public.team_members for insert to authenticated with check (user_id = (select auth.uid()));
            create policy "move projects" on public.projects for update to authenticated
              using (public.is_member(team_id)) with check (true);
            create policy "read invitations" on public.invitations for select to authenticated using (true);
            create policy "members remove" on public.team_members for delete to authenticated
              using (public.is_member(team_id));
            create policy "delete avatars" on storage.objects for delete to authenticated using (bucket_id = 'avatars');
            """
    static let teamsPlanted = 7

    /// Organisations: membership through profiles, documents with an author and a share token,
    /// a text-free enum role ranked by name (member before admin), a feature-flag catalog.
    static let orgs = """
        create type public.org_role as enum ('member', 'admin');
        create table public.profiles (id uuid primary key references auth.users (id), username text, avatar_url text);
        create table public.organizations (id bigint generated always as identity primary key, name text);
        create table public.memberships (
          id bigint generated always as identity primary key,
          organization_id bigint not null references public.organizations (id),
          profile_id uuid not null references public.profiles (id),
          role public.org_role not null default 'member', unique (organization_id, profile_id));
        create table public.documents (
          id bigint generated always as identity primary key,
          organization_id bigint not null references public.organizations (id),
          created_by uuid not null default auth.uid() references auth.users (id), title text, share_token text);
        create table public.feature_flags (id bigint generated always as identity primary key, name text, enabled boolean);
        do $$ declare t text; begin
          foreach t in array array['profiles', 'organizations', 'memberships', 'documents', 'feature_flags'] loop
            execute format('alter table public.%I enable row level security', t);
            execute format('grant select on public.%I to anon', t);
            execute format('grant select, insert, update, delete on public.%I to authenticated', t);
            execute format('grant all on public.%I to service_role', t);
          end loop; end $$;
        create function public.org_role_of(o bigint) returns public.org_role language sql security definer stable
          set search_path = '' as $$
          select m.role from public.memberships m where m.organization_id = o and m.profile_id = auth.uid() $$;
        create function public.make_creator_admin() returns trigger language plpgsql security definer
          set search_path = '' as $$
          begin
            if auth.uid() is not null then
              insert into public.profiles (id) values (auth.uid()) on conflict do nothing;
              insert into public.memberships (organization_id, profile_id, role) values (new.id, auth.uid(), 'admin');
            end if;
            return new;
          end $$;
        create function public.handle_new_user() returns trigger language plpgsql security definer
          set search_path = '' as $$
          begin insert into public.profiles (id, username) values (new.id, new.email); return new; end $$;
        create trigger on_auth_user_created after insert on auth.users
          for each row execute function public.handle_new_user();
        create trigger make_creator_admin after insert on public.organizations
          for each row execute function public.make_creator_admin();
        create policy "profiles are public" on public.profiles for select using (true);
        create policy "own profile" on public.profiles for insert to authenticated with check (id = (select auth.uid()));
        create policy "members read orgs" on public.organizations for select to authenticated
          using (public.org_role_of(id) is not null);
        create policy "create orgs" on public.organizations for insert to authenticated with check (true);
        create policy "admins edit orgs" on public.organizations for update to authenticated
          using (public.org_role_of(id) = 'admin');
        create policy "members read members" on public.memberships for select to authenticated
          using (public.org_role_of(organization_id) is not null);
        create policy "admins add" on public.memberships for insert to authenticated
          with check (public.org_role_of(organization_id) = 'admin');
        create policy "admins remove, members leave" on public.memberships for delete to authenticated
          using (public.org_role_of(organization_id) = 'admin' or profile_id = (select auth.uid()));
        create policy "members read documents" on public.documents for select to authenticated
          using (public.org_role_of(organization_id) is not null);
        create policy "members edit documents" on public.documents for update to authenticated
          using (public.org_role_of(organization_id) is not null)
          with check (public.org_role_of(organization_id) is not null);
        create policy "flags are public" on public.feature_flags for select using (true);
        """

    static let orgsCorrect =
        orgs + """

            create policy "edit own profile" on public.profiles for update to authenticated
              using (id = (select auth.uid())) with check (id = (select auth.uid()));
            create policy "members write documents" on public.documents for insert to authenticated
              with check (public.org_role_of(organization_id) is not null and created_by = (select auth.uid()));
            create policy "admins delete documents" on public.documents for delete to authenticated
              using (public.org_role_of(organization_id) = 'admin');
            create policy "admins change roles" on public.memberships for update to authenticated
              using (public.org_role_of(organization_id) = 'admin') with check (public.org_role_of(organization_id) = 'admin');
            """

    /// Planted: anyone signed in reads documents' share tokens, a document inserted into another org, a profile
    /// changed by another user, a catalog changed, a member promotes themselves to admin.
    static let orgsBuggy =
        orgs + """

            create policy "edit profiles" on public.profiles for update to authenticated using (true);
            create policy "members write documents" on public.documents for insert to authenticated with check (true);
            create policy "read documents" on public.documents for select to authenticated
              using ((select auth.uid()) is not null);
            create policy "flags" on public.feature_flags for all to authenticated using (true) with check (true);
            create policy "members change roles" on public.memberships for update to authenticated
              using (public.org_role_of(organization_id) is not null);
            """
    static let orgsPlanted = 5

    /// Boards: a text role whose values only a check constraint lists (viewer first), cards per board.
    static let boards = """
        create table public.boards (id uuid primary key default gen_random_uuid(), name text);
        create table public.board_members (
          board_id uuid not null references public.boards (id) on delete cascade,
          user_id uuid not null references auth.users (id),
          role text not null default 'viewer' check (role in ('viewer', 'editor', 'owner')),
          primary key (board_id, user_id));
        create table public.cards (
          id bigint generated always as identity primary key,
          board_id uuid not null references public.boards (id), title text);
        do $$ declare t text; begin
          foreach t in array array['boards', 'board_members', 'cards'] loop
            execute format('alter table public.%I enable row level security', t);
            execute format('grant select, insert, update, delete on public.%I to authenticated', t);
            execute format('grant all on public.%I to service_role', t);
          end loop; end $$;
        create function public.role_on(b uuid) returns text language sql security definer stable
          set search_path = '' as $$
          select m.role from public.board_members m where m.board_id = b and m.user_id = auth.uid() $$;
        create function public.add_board_owner() returns trigger language plpgsql security definer
          set search_path = '' as $$
          begin
            if auth.uid() is not null then
              insert into public.board_members (board_id, user_id, role) values (new.id, auth.uid(), 'owner');
            end if;
            return new;
          end $$;
        create trigger add_board_owner after insert on public.boards
          for each row execute function public.add_board_owner();
        create policy "members read boards" on public.boards for select to authenticated
          using (public.role_on(id) is not null);
        create policy "create boards" on public.boards for insert to authenticated with check (true);
        create policy "owners edit boards" on public.boards for update to authenticated
          using (public.role_on(id) = 'owner');
        create policy "members read members" on public.board_members for select to authenticated
          using (public.role_on(board_id) is not null);
        create policy "owners add" on public.board_members for insert to authenticated
          with check (public.role_on(board_id) = 'owner');
        create policy "owners remove, members leave" on public.board_members for delete to authenticated
          using (public.role_on(board_id) = 'owner' or user_id = (select auth.uid()));
        create policy "editors write cards" on public.cards for insert to authenticated
          with check (public.role_on(board_id) in ('owner', 'editor'));
        create policy "editors edit cards" on public.cards for update to authenticated
          using (public.role_on(board_id) in ('owner', 'editor'))
          with check (public.role_on(board_id) in ('owner', 'editor'));
        """

    static let boardsCorrect =
        boards + """

            create policy "owners change roles" on public.board_members for update to authenticated
              using (public.role_on(board_id) = 'owner') with check (public.role_on(board_id) = 'owner');
            create policy "members read cards" on public.cards for select to authenticated
              using (public.role_on(board_id) is not null);
            """

    /// Planted: a viewer makes themselves owner, every signed-in user reads every board's cards.
    static let boardsBuggy =
        boards + """

            create policy "change roles" on public.board_members for update to authenticated
              using (user_id = (select auth.uid()) or public.role_on(board_id) = 'owner');
            create policy "read cards" on public.cards for select to authenticated using (true);
            """
    static let boardsPlanted = 2
}
