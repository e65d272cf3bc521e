extension Lint {
    /// Whether `comparison` sits in a subquery under `NOT EXISTS`, at any depth of `nodes`; the
    /// server prints it `NOT (EXISTS (…))`, so `afterNot` says the list itself follows a NOT.
    static func underNotExists(_ nodes: [PolicyExpression.Node], _ comparison: String, afterNot: Bool = false) -> Bool {
        func isKeyword(_ i: Int, _ k: String) -> Bool { i >= 0 && nodes[i].token?.isKeyword(k) == true }
        for (i, node) in nodes.enumerated() {
            guard case .group(_, let inner) = node else { continue }
            let negated = isKeyword(i - 2, "NOT") || (i == 1 && afterNot)
            if isKeyword(i - 1, "EXISTS"), negated, PolicyExpression.Scan.selfComparisons(inner).contains(comparison) {
                return true
            }
            if underNotExists(inner, comparison, afterNot: isKeyword(i - 1, "NOT")) { return true }
        }
        return false
    }

    static let policySelfComparison = Lint(
        id: "1006", name: "policy_self_comparison", title: "Policy compares a column with itself",
        level: .error, categories: [.security],
        description: """
            A policy compares a column with itself, e.g. `memberships.organization_id = \
            memberships.organization_id` inside an EXISTS meant to correlate with the outer row. That \
            is true for every non-NULL value: every user with any membership passes for every row. \
            Under NOT EXISTS the test is false once the caller can see any row of the subquery's \
            table and true for a caller who sees none, which RLS makes of every outsider: members are \
            locked out and strangers get in. The proof decides: a stranger's write that goes through.
            """,
        remediation: """
            Compare with the policy's own row instead: the policy table's column of the same name, else \
            the one whose foreign key references the same table (`memberships.organization_id = projects.organization_id`).
            """,
        logic: .swift(needs: [.policies, .selfComparedColumns, .policyHelpers]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                let columns: PolicyExpression.Scan.Columns = { catalog.columnNames($0, schema: p.schema) }
                // A column the policy's table has too is 1013's: the row's was meant.
                let outer = catalog.columnNames(p.tableName, schema: p.schema) ?? []
                func resolved(_ e: PolicyExpression) -> [String] {
                    PolicyExpression.Scan.resolvedSelfComparisons(e.nodes, columns: columns).filter { c in
                        !outer.contains(String(c.split(separator: " ").last?.split(separator: ".").last ?? ""))
                    }
                }
                var same = Set(p.expressions.flatMap(\.selfComparisons))
                for e in p.expressions { same.formUnion(resolved(e)) }
                if let first = same.sorted().first {
                    // Under NOT EXISTS the subquery sees rows through RLS: none for an outsider.
                    let negated = p.expressions.contains { underNotExists($0.nodes, first) }
                    let effect =
                        negated
                        ? "inside NOT EXISTS, so that test is false for a caller who can see any row of the table and true for one who sees none (RLS hides other groups' rows from outsiders): members are locked out and strangers pass it"
                        : "always true, so it restricts nothing"
                    return FindingDraft(
                        object: p.object,
                        detail: "\(p.label) compares a column with itself (\(first)): \(effect)",
                        metadata: p.baseMetadata.merging(["comparisons": same.sorted().joined(separator: "; ")]) { $1 },
                        fix: selfComparisonFix(first, policy: p, catalog: catalog))
                }
                // The same mistake inside a helper the policy calls, its body inlined.
                for i in catalog.inlinedExpressions(p) {
                    let e = i.expression
                    let found = Set(e.selfComparisons + resolved(e)).sorted()
                    guard let first = found.first else { continue }
                    let names = i.helpers.map { $0 + "()" }.joined(separator: ", ")
                    let column =
                        first.components(separatedBy: " = ")[0].split(separator: ".").last.map(String.init) ?? ""
                    return FindingDraft(
                        object: p.object,
                        detail:
                            "\(p.label) calls \(names), whose body compares a column with itself (\(first)): always true, so it restricts nothing",
                        metadata: p.baseMetadata.merging([
                            "comparisons": found.joined(separator: "; "), "helpers": i.helpers.joined(separator: ","),
                            "inlined": e.canonical,
                        ]) { $1 },
                        fix:
                            "In \(names), compare the subquery's column with the function's parameter: a parameter named like a column of the subquery's table is that column in a SQL function, so rename it (`p_\(column)`) or qualify the column with its table."
                    )
                }
                return nil
            }
        },
        triggering: [
            .init(
                """
                create table public.memberships (user_id uuid, organization_id uuid);
                create table public.projects (id int primary key, organization_id uuid);
                alter table public.projects enable row level security;
                create policy "members read projects" on public.projects for select to authenticated using (
                  exists (select 1 from public.memberships where memberships.user_id = (select auth.uid())
                          and memberships.organization_id = memberships.organization_id));
                """, reports: "policy \"members read projects\" on public.projects"),
            .init(
                """
                -- Same column names differ: the fix must name the column that exists (org_ref), never m.org_id's twin.
                create table public.orgs (id uuid primary key);
                create table public.memberships (user_id uuid, org_id uuid references public.orgs);
                create table public.projects (id int primary key, org_ref uuid references public.orgs);
                create table public.notes (id int primary key, body text);
                alter table public.projects enable row level security;
                alter table public.notes enable row level security;
                create policy "members read projects" on public.projects for select to authenticated using (
                  exists (select 1 from public.memberships m where m.user_id = (select auth.uid()) and m.org_id = m.org_id));
                create policy "members read notes" on public.notes for select to authenticated using (
                  exists (select 1 from public.memberships m where m.user_id = (select auth.uid()) and m.org_id = m.org_id));
                """, reports: "policy \"members read projects\" on public.projects",
                "policy \"members read notes\" on public.notes"),
            .init(
                """
                -- Inside a SQL helper: the parameter is named like the column, so the column wins.
                create table public.memberships (user_id uuid, organization_id uuid, role text);
                create table public.projects (id int primary key, organization_id uuid);
                create function public.is_org_admin(organization_id uuid) returns boolean language sql stable
                  security definer set search_path = '' as $$
                  select exists (select 1 from public.memberships
                                 where organization_id = organization_id and user_id = auth.uid() and role = 'admin')
                $$;
                alter table public.projects enable row level security;
                create policy "admins edit projects" on public.projects for update to authenticated
                  using (public.is_org_admin(organization_id));
                """, reports: "policy \"admins edit projects\" on public.projects"),
            .init(
                """
                -- A PL/pgSQL helper returning exists (…), its column compared with itself.
                create table public.memberships (user_id uuid, org_id uuid);
                create table public.invoices (id int primary key, org_id uuid);
                create function public.in_org(o uuid) returns boolean language plpgsql stable as $$
                begin
                  return exists (select 1 from public.memberships m where m.org_id = m.org_id and m.user_id = auth.uid());
                end $$;
                alter table public.invoices enable row level security;
                create policy "members read invoices" on public.invoices for select to authenticated
                  using (public.in_org(org_id));
                """, reports: "policy \"members read invoices\" on public.invoices"),
            .init(
                """
                -- Qualified on one side only; the policy's table calls the column otherwise.
                create table public.memberships (user_id uuid, organization_id uuid);
                create table public.reports (id int primary key, org uuid);
                create function public.is_member(organization_id uuid) returns boolean language sql stable as $$
                  select exists (select 1 from public.memberships m
                                 where m.organization_id = organization_id and m.user_id = auth.uid())
                $$;
                alter table public.reports enable row level security;
                create policy "members read reports" on public.reports for select to authenticated
                  using (public.is_member(org));
                """, reports: "policy \"members read reports\" on public.reports"),
            .init(
                """
                -- Under NOT EXISTS: meant as "the first member of a new team", true only while no team has one.
                create table public.teams (id uuid primary key);
                create table public.team_members (team_id uuid references public.teams, user_id uuid);
                alter table public.team_members enable row level security;
                create policy "first member joins" on public.team_members for insert to authenticated with check (
                  user_id = (select auth.uid())
                  and not exists (select 1 from public.team_members tm where tm.team_id = tm.team_id));
                """, reports: "policy \"first member joins\" on public.team_members"),
            .init(
                """
                -- Under NOT EXISTS, beside a helper that grants the normal path.
                create table public.orgs (id uuid primary key);
                create table public.org_members (org_id uuid references public.orgs, user_id uuid, role text);
                create function public.can_manage(o uuid) returns boolean language sql stable as $$ select false $$;
                alter table public.org_members enable row level security;
                create policy "managers or founders add members" on public.org_members for insert to authenticated
                  with check (public.can_manage(org_id)
                              or not exists (select 1 from public.org_members m where m.org_id = m.org_id));
                """, reports: "policy \"managers or founders add members\" on public.org_members"),
        ],
        nonTriggering: [
            """
            create table public.memberships (user_id uuid, organization_id uuid);
            create table public.projects (id int primary key, organization_id uuid);
            alter table public.projects enable row level security;
            create policy "members read projects" on public.projects for select to authenticated using (
              exists (select 1 from public.memberships where memberships.user_id = (select auth.uid())
                      and memberships.organization_id = projects.organization_id));
            """,
            """
            -- The helper's parameter has its own name, and PL/pgSQL reads $1.
            create table public.memberships (user_id uuid, organization_id uuid);
            create table public.projects (id int primary key, organization_id uuid);
            create function public.is_member(p_org uuid) returns boolean language sql stable as $$
              select exists (select 1 from public.memberships m where m.organization_id = p_org and m.user_id = auth.uid())
            $$;
            create function public.is_member2(uuid) returns boolean language plpgsql stable as $$
            begin
              return exists (select 1 from public.memberships m where m.organization_id = $1 and m.user_id = auth.uid());
            end $$;
            alter table public.projects enable row level security;
            create policy "members read projects" on public.projects for select to authenticated
              using (public.is_member(organization_id) or public.is_member2(organization_id));
            """,
            """
            -- In PL/pgSQL a parameter named like a column is ambiguous: the call raises, nothing opens.
            create table public.team_members (user_id uuid, team_id uuid);
            create table public.boards (id int primary key, team_id uuid);
            create function public.is_team_member(team_id uuid) returns boolean language plpgsql stable as $$
            begin
              return exists (select 1 from public.team_members where team_id = $1 and user_id = auth.uid());
            end $$;
            alter table public.boards enable row level security;
            create policy "team reads boards" on public.boards for select to authenticated
              using (public.is_team_member(team_id));
            """,
            """
            -- The parameter qualified with the function's name is the argument, not the column.
            create table public.memberships (user_id uuid, organization_id uuid);
            create table public.reports (id int primary key, org uuid);
            create function public.is_member(organization_id uuid) returns boolean language sql stable as $$
              select exists (select 1 from public.memberships m
                             where m.organization_id = is_member.organization_id and m.user_id = auth.uid())
            $$;
            alter table public.reports enable row level security;
            create policy "members read reports" on public.reports for select to authenticated
              using (public.is_member(org));
            """,
        ])
}
