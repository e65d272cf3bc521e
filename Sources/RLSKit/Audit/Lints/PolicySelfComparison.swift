extension Lint {
    static let policySelfComparison = Lint(
        id: "1006", name: "policy_self_comparison", title: "Policy compares a column with itself",
        level: .error, categories: [.security],
        description: """
            A policy compares a column with itself, e.g. `memberships.organization_id = \
            memberships.organization_id` inside an EXISTS meant to correlate with the outer row. That \
            is true for every non-NULL value: every user with any membership passes for every row.
            """,
        remediation: """
            Compare with the policy's own row instead: the policy table's column of the same name, else \
            the one whose foreign key references the same table (`memberships.organization_id = projects.organization_id`).
            """,
        logic: .swift(needs: [.policies, .selfComparedColumns]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                let same = Array(Set(p.expressions.flatMap(\.selfComparisons))).sorted()
                guard let first = same.first else { return nil }
                return FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) compares a column with itself (\(first)): always true, so it restricts nothing",
                    metadata: p.baseMetadata.merging(["comparisons": same.joined(separator: "; ")]) { $1 },
                    fix: selfComparisonFix(first, policy: p, catalog: catalog))
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
        ],
        nonTriggering: [
            """
            create table public.memberships (user_id uuid, organization_id uuid);
            create table public.projects (id int primary key, organization_id uuid);
            alter table public.projects enable row level security;
            create policy "members read projects" on public.projects for select to authenticated using (
              exists (select 1 from public.memberships where memberships.user_id = (select auth.uid())
                      and memberships.organization_id = projects.organization_id));
            """
        ])
}
