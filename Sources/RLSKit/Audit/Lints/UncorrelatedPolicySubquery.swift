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
        logic: .swift(needs: [.policies, .policyHelpers]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.permissive, !p.apiRoles.isEmpty else { return nil }
                let found = p.expressions.compactMap {
                    PolicyExpression.Scan.uncorrelatedRestriction($0.nodes, table: p.table)
                }
                if let first = found.first {
                    return FindingDraft(
                        object: p.object,
                        detail:
                            "\(p.label) is decided by \(first), which never refers to the row of \(p.displayTable): it is true for every row or for none",
                        metadata: p.baseMetadata)
                }
                for i in catalog.inlinedExpressions(p) {
                    guard let first = PolicyExpression.Scan.uncorrelatedRestriction(i.expression.nodes, table: p.table)
                    else { continue }
                    let names = i.helpers.map { $0 + "()" }.joined(separator: ", ")
                    return FindingDraft(
                        object: p.object,
                        detail:
                            "\(p.label) calls \(names), whose body decides by \(first), which never refers to the row of \(p.displayTable): it is true for every row or for none",
                        metadata: p.baseMetadata.merging([
                            "helpers": i.helpers.joined(separator: ","), "inlined": i.expression.canonical,
                        ]) { $1 })
                }
                return nil
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
            .init(
                """
                -- Inside a helper that never uses its argument.
                create table public.memberships (user_id uuid, organization_id uuid);
                create function public.my_org_ids() returns setof uuid language plpgsql stable security definer
                  set search_path = '' as $$ declare me uuid := auth.uid();
                  begin return query select organization_id from public.memberships where user_id = me; end $$;
                create table public.invoices (id uuid primary key, organization_id uuid);
                create function public.can_read_invoice(invoice_org uuid) returns boolean language sql stable as $$
                  select exists (select 1 from public.memberships
                                 where memberships.organization_id in (select public.my_org_ids()))
                $$;
                alter table public.invoices enable row level security;
                create policy "members read invoices" on public.invoices for select to authenticated
                  using (public.can_read_invoice(organization_id));
                """, reports: "policy \"members read invoices\" on public.invoices"),
            .init(
                """
                -- ANDed with a bucket test, which picks the files but not whose they are.
                create table public.memberships (user_id uuid, organization_id uuid);
                create function public.my_org_ids() returns setof uuid language plpgsql stable security definer
                  set search_path = '' as $$ declare me uuid := auth.uid();
                  begin return query select organization_id from public.memberships where user_id = me; end $$;
                create policy "members read invoices" on storage.objects for select to authenticated using (
                  bucket_id = 'invoices' and exists (select 1 from public.memberships
                                                     where memberships.organization_id in (select public.my_org_ids())));
                """, reports: "policy \"members read invoices\" on storage.objects"),
            .init(
                """
                -- A PL/pgSQL helper returning exists (…) over a bucket's files.
                create table public.memberships (user_id uuid, organization_id uuid);
                create function public.my_org_ids() returns setof uuid language plpgsql stable security definer
                  set search_path = '' as $$ declare me uuid := auth.uid();
                  begin return query select organization_id from public.memberships where user_id = me; end $$;
                create function public.may_read(path text) returns boolean language plpgsql stable as $$
                begin
                  return exists (select 1 from public.memberships m where m.organization_id in (select public.my_org_ids()));
                end $$;
                create policy "members read docs" on storage.objects for select to authenticated using (
                  bucket_id = 'docs' and public.may_read(name));
                """, reports: "policy \"members read docs\" on storage.objects"),
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
            """
            -- A helper with no argument that asks about the caller: an admin check, the same for every row.
            create table public.admins (user_id uuid primary key, active boolean);
            create table public.invoices (id uuid primary key);
            create function public.is_admin() returns boolean language sql stable as $$
              select exists (select 1 from public.admins where user_id = auth.uid() and active limit 1)
            $$;
            alter table public.invoices enable row level security;
            create policy "admins read invoices" on public.invoices for select to authenticated using (public.is_admin());
            """,
            """
            -- The helper compares its argument: the row's organization.
            create table public.memberships (user_id uuid, organization_id uuid);
            create function public.my_org_ids() returns setof uuid language plpgsql stable security definer
              set search_path = '' as $$ declare me uuid := auth.uid();
              begin return query select organization_id from public.memberships where user_id = me; end $$;
            create table public.invoices (id uuid primary key, organization_id uuid);
            create function public.can_read_invoice(invoice_org uuid) returns boolean language sql stable as $$
              select exists (select 1 from public.memberships where memberships.organization_id = invoice_org
                             and memberships.organization_id in (select public.my_org_ids()))
            $$;
            alter table public.invoices enable row level security;
            create policy "members read invoices" on public.invoices for select to authenticated
              using (public.can_read_invoice(organization_id));
            """,
            """
            -- A bucket test ANDed with an admin check (about the caller) or with the file's folder.
            create table public.admins (user_id uuid primary key);
            create table public.memberships (user_id uuid, organization_id uuid);
            create function public.my_org_ids() returns setof uuid language plpgsql stable security definer
              set search_path = '' as $$ declare me uuid := auth.uid();
              begin return query select organization_id from public.memberships where user_id = me; end $$;
            create policy "admins read invoices" on storage.objects for select to authenticated using (
              bucket_id = 'invoices' and exists (select 1 from public.admins where admins.user_id = (select auth.uid())));
            create policy "members read docs" on storage.objects for select to authenticated using (
              bucket_id = 'docs' and exists (select 1 from public.memberships
                where memberships.organization_id::text = (storage.foldername(name))[1]
                  and memberships.organization_id in (select public.my_org_ids())));
            """,
        ])
}
