extension Lint {
    static let authenticatedSecurityDefinerFunctionExecutable = Lint(
        id: "0029", name: "authenticated_security_definer_function_executable",
        title: "SECURITY DEFINER function callable by authenticated",
        level: .warn, categories: [.security],
        description: """
            A SECURITY DEFINER function in an exposed schema can be executed by authenticated, so every \
            signed-in user can call it as RPC and it runs with its owner's rights, past every policy. \
            That is sometimes the point; then the function must check the caller itself. Testing only \
            that a user is signed in (`auth.uid() is null`) checks nothing here; a body that ties each id \
            argument and each row it updates or deletes to the caller in a condition is listed at INFO.
            """,
        remediation:
            "Check `auth.uid()` inside the function, or move it out of the exposed schemas, or `revoke execute on function <function> from public, authenticated;`.",
        logic: .swift(needs: [.functions, .policies]) { securityDefinerExecutable(role: "authenticated", $0) },
        triggering: [
            .init(
                """
                create function public.promote(target uuid) returns void language sql security definer set search_path = ''
                  as $$ select $$;
                revoke execute on function public.promote(uuid) from public, anon;
                grant execute on function public.promote(uuid) to authenticated;
                """, reports: "function public.promote(uuid)"),
            .init(
                """
                -- It asks that a user be signed in, then adds them to whatever team they name.
                create table public.team_members (team uuid, user_id uuid, role text);
                create function public.join_team(p_team uuid) returns void language plpgsql security definer
                  set search_path = '' as $$
                declare v_uid uuid := auth.uid();
                begin
                  if v_uid is null then raise exception 'sign in'; end if;
                  insert into public.team_members (team, user_id, role) values (p_team, v_uid, 'owner');
                end $$;
                revoke execute on function public.join_team(uuid) from public, anon;
                grant execute on function public.join_team(uuid) to authenticated;
                """, reports: "function public.join_team(uuid)"),
            .init(
                """
                -- Signed in, it updates the profile of whichever user the caller names.
                create table public.profiles (id uuid primary key, name text);
                create function public.rename_user(p_user_id uuid, p_name text) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if auth.role() <> 'authenticated' then raise exception 'sign in'; end if;
                  update public.profiles set name = p_name where id = p_user_id;
                end $$;
                revoke execute on function public.rename_user(uuid, text) from public, anon;
                grant execute on function public.rename_user(uuid, text) to authenticated;
                """, reports: "function public.rename_user(uuid, text)"),
            .init(
                """
                -- Signed in, it adds the caller to a team found by a name anyone may pass.
                create table public.teams (id uuid primary key, name text);
                create table public.team_members (team uuid, user_id uuid, role text);
                create function public.join_by_name(p_name text) returns void language plpgsql security definer
                  set search_path = '' as $$
                declare v_uid uuid := auth.uid(); v_team uuid;
                begin
                  if v_uid is null then raise exception 'sign in'; end if;
                  select id into v_team from public.teams where name = p_name;
                  insert into public.team_members (team, user_id, role) values (v_team, v_uid, 'member');
                end $$;
                revoke execute on function public.join_by_name(text) from public, anon;
                grant execute on function public.join_by_name(text) to authenticated;
                """, reports: "function public.join_by_name(text)"),
        ],
        nonTriggering: [
            """
            create function public.promote(target uuid) returns void language sql security definer set search_path = ''
              as $$ select $$;
            revoke execute on function public.promote(uuid) from public, anon, authenticated;
            grant execute on function public.promote(uuid) to service_role;
            """,
            """
            -- A trigger function cannot be called through the API.
            create function public.touch() returns trigger language plpgsql security definer set search_path = ''
              as $$ begin return new; end $$;
            """,
            """
            -- A read-only yes/no test that policies for authenticated call: INFO only.
            create table public.studies (id uuid primary key, sharing text);
            create table public.subjects (id uuid primary key, study uuid);
            alter table public.subjects enable row level security;
            create function public.results_public(subject uuid) returns boolean language plpgsql
              security definer set search_path = '' as $$
            begin
              return exists (select 1 from public.studies s join public.subjects j on j.study = s.id
                             where j.id = subject and s.sharing = 'public');
            end $$;
            revoke execute on function public.results_public(uuid) from public, anon;
            grant execute on function public.results_public(uuid) to authenticated;
            create policy "public results" on public.subjects for select to authenticated
              using (public.results_public(id));
            """,
            """
            -- The guard tests a variable filled from a caller check: INFO only.
            create table public.members (account uuid, user_id uuid, role text);
            create function public.has_role(acct uuid, wanted text) returns boolean language sql stable
              set search_path = '' as $$ select exists (select 1 from public.members
                where account = acct and user_id = auth.uid() and role = wanted) $$;
            create function public.set_role(acct uuid, member uuid, new_role text) returns void language plpgsql
              security definer set search_path = '' as $$
            declare is_owner boolean;
            begin
              select public.has_role(acct, 'owner') into is_owner;
              if not is_owner then raise exception 'only owners'; end if;
              update public.members set role = new_role where account = acct and user_id = member;
            end $$;
            revoke execute on function public.set_role(uuid, uuid, text) from public, anon;
            grant execute on function public.set_role(uuid, uuid, text) to authenticated;
            """,
            """
            -- A sign-in test ORed with a membership check still checks membership: INFO only.
            create table public.team_members (team uuid, user_id uuid, role text);
            create function public.is_lead(t uuid) returns boolean language sql stable set search_path = ''
              as $$ select exists (select 1 from public.team_members
                where team = t and user_id = auth.uid() and role = 'lead') $$;
            create function public.clear_team(p_team uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            begin
              if auth.uid() is null or not public.is_lead(p_team) then raise exception 'leads only'; end if;
              delete from public.team_members where team = p_team and role <> 'lead';
            end $$;
            revoke execute on function public.clear_team(uuid) from public, anon;
            grant execute on function public.clear_team(uuid) to authenticated;
            """,
            """
            -- Accepts the invitation sent to the caller's own email, for the caller: INFO only.
            create table public.invites (id uuid primary key, team uuid, email text, status text);
            create table public.team_members (team uuid, user_id uuid, role text);
            create function public.accept_invite(p_invite uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            declare
              v_uid uuid := auth.uid();
              v_email text := lower(auth.jwt() ->> 'email');
              v_invite public.invites;
            begin
              if v_uid is null then raise exception 'sign in'; end if;
              select * into v_invite from public.invites where id = p_invite and lower(email) = v_email;
              if not found then raise exception 'no such invitation'; end if;
              insert into public.team_members (team, user_id, role) values (v_invite.team, v_uid, 'member');
              update public.invites set status = 'accepted' where id = v_invite.id;
            end $$;
            revoke execute on function public.accept_invite(uuid) from public, anon;
            grant execute on function public.accept_invite(uuid) to authenticated;
            """,
            """
            -- Creates a team owned by the caller and renames only teams the caller leads: INFO only.
            create table public.teams (id uuid primary key default gen_random_uuid(), name text);
            create table public.team_members (team uuid, user_id uuid, role text);
            create function public.create_team(p_name text) returns uuid language plpgsql security definer
              set search_path = '' as $$
            declare v_uid uuid := auth.uid(); v_team uuid;
            begin
              if v_uid is null then raise exception 'sign in'; end if;
              insert into public.teams (name) values (p_name) returning id into v_team;
              insert into public.team_members (team, user_id, role) values (v_team, v_uid, 'owner');
              return v_team;
            end $$;
            create function public.rename_team(p_team_id uuid, p_name text) returns void language plpgsql
              security definer set search_path = '' as $$
            declare v_uid uuid;
            begin
              v_uid := auth.uid();
              if v_uid is null then raise exception 'sign in'; end if;
              update public.teams t set name = p_name where t.id = p_team_id
                and t.id in (select m.team from public.team_members m where m.user_id = v_uid and m.role = 'owner');
            end $$;
            revoke execute on function public.create_team(text) from public, anon;
            grant execute on function public.create_team(text) to authenticated;
            revoke execute on function public.rename_team(uuid, text) from public, anon;
            grant execute on function public.rename_team(uuid, text) to authenticated;
            """,
        ])
}
