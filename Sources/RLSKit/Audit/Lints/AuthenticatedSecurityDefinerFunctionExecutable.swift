extension Lint {
    static let authenticatedSecurityDefinerFunctionExecutable = Lint(
        id: "0029", name: "authenticated_security_definer_function_executable",
        title: "SECURITY DEFINER function callable by authenticated",
        level: .warn, categories: [.security],
        description: """
            A SECURITY DEFINER function in an exposed schema can be executed by authenticated, so every \
            signed-in user can call it as RPC and it runs with its owner's rights, past every policy. \
            That is sometimes the point; then the function must check the caller itself.
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
                """, reports: "function public.promote(uuid)")
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
        ])
}
