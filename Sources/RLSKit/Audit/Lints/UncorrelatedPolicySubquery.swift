extension Lint {
    static let uncorrelatedPolicySubquery = Lint(
        id: "1007", name: "uncorrelated_policy_subquery",
        title: "Row access decided by a subquery that ignores the row",
        level: .error, categories: [.security],
        description: """
            The only restriction of a permissive policy is an EXISTS, IN or scalar subquery that \
            mentions neither the policy's table nor the caller directly, e.g. `exists (select 1 from \
            memberships where memberships.organization_id in (select my_org_ids()))` or `(select \
            count(*) from memberships where …) > 0`. It has the same value for every row: any \
            member of any organization reads every row.
            """,
        remediation:
            "Correlate the subquery with the row: add `and memberships.organization_id = <table>.organization_id` (or the matching column).",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.permissive, !p.apiRoles.isEmpty else { return nil }
                let found = p.expressions.compactMap {
                    PolicyExpression.Scan.uncorrelatedRestriction($0.nodes, table: p.table)
                }
                guard let first = found.first else { return nil }
                return FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) is decided by \(first), which never refers to the row of \(p.displayTable): it is true for every row or for none",
                    metadata: p.baseMetadata)
            }
        },
        triggering: [
            .init(
                """
                create table public.memberships (user_id uuid, organization_id uuid);
                create function public.my_org_ids() returns setof uuid language sql stable security definer
                  set search_path = '' as $$ select organization_id from public.memberships where user_id = auth.uid() $$;
                create table public.profiles (id uuid primary key, organization_id uuid);
                alter table public.profiles enable row level security;
                create policy "members read profiles" on public.profiles for select to authenticated using (
                  exists (select 1 from public.memberships
                          where memberships.organization_id in (select public.my_org_ids())));
                """, reports: "policy \"members read profiles\" on public.profiles"),
            .init(
                """
                -- The same test as a scalar subquery.
                create table public.memberships (user_id uuid, organization_id uuid);
                create function public.my_org_ids() returns setof uuid language sql stable security definer
                  set search_path = '' as $$ select organization_id from public.memberships where user_id = auth.uid() $$;
                create table public.profiles (id uuid primary key, organization_id uuid);
                alter table public.profiles enable row level security;
                create policy "members read profiles" on public.profiles for select to authenticated using (
                  (select count(*) from public.memberships
                   where memberships.organization_id in (select public.my_org_ids())) > 0);
                """, reports: "policy \"members read profiles\" on public.profiles"),
            .init(
                """
                -- An IN subquery whose left side is a constant: any owner of any organization.
                create table public.memberships (user_id uuid, organization_id uuid, role text);
                create function public.my_org_ids() returns setof uuid language sql stable security definer
                  set search_path = '' as $$ select organization_id from public.memberships where user_id = auth.uid() $$;
                create table public.invoices (id uuid primary key, organization_id uuid);
                alter table public.invoices enable row level security;
                create policy "owners read invoices" on public.invoices for select to authenticated using (
                  auth.role() = 'authenticated'
                  and 'owner' in (select memberships.role from public.memberships
                                  where memberships.organization_id in (select public.my_org_ids())));
                """, reports: "policy \"owners read invoices\" on public.invoices"),
        ],
        nonTriggering: [
            """
            create table public.memberships (user_id uuid, organization_id uuid);
            create function public.my_org_ids() returns setof uuid language sql stable security definer
              set search_path = '' as $$ select organization_id from public.memberships where user_id = auth.uid() $$;
            create table public.profiles (id uuid primary key, organization_id uuid);
            alter table public.profiles enable row level security;
            create policy "members read profiles" on public.profiles for select to authenticated using (
              exists (select 1 from public.memberships
                      where memberships.organization_id in (select public.my_org_ids())
                        and memberships.organization_id = profiles.organization_id));
            """,
            """
            -- An admin check: deliberately the same for every row, and about the caller.
            create table public.admins (user_id uuid primary key);
            create table public.profiles (id uuid primary key);
            alter table public.profiles enable row level security;
            create policy "admins read profiles" on public.profiles for select to authenticated using (
              exists (select 1 from public.admins where admins.user_id = (select auth.uid())));
            """,
            """
            -- The row's own column is tested against the caller's organizations.
            create table public.memberships (user_id uuid, organization_id uuid);
            create function public.my_org_ids() returns setof uuid language sql stable security definer
              set search_path = '' as $$ select organization_id from public.memberships where user_id = auth.uid() $$;
            create table public.invoices (id uuid primary key, organization_id uuid);
            alter table public.invoices enable row level security;
            create policy "members read invoices" on public.invoices for select to authenticated using (
              organization_id in (select memberships.organization_id from public.memberships
                                  where memberships.organization_id in (select public.my_org_ids())));
            """,
            """
            -- A scalar subquery correlated with the row.
            create table public.memberships (user_id uuid, organization_id uuid, role text);
            create table public.invoices (id uuid primary key, organization_id uuid);
            alter table public.invoices enable row level security;
            create policy "owners read invoices" on public.invoices for select to authenticated using (
              (select memberships.role from public.memberships
               where memberships.organization_id = invoices.organization_id
                 and memberships.user_id = (select auth.uid()) limit 1) = 'owner');
            """,
        ])
}
