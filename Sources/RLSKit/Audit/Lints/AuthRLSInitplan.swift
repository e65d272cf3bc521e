extension Lint {
    static let authRLSInitplan = Lint(
        id: "0003", name: "auth_rls_initplan", title: "Auth function re-evaluated for every row",
        level: .warn, categories: [.performance],
        description: """
            A policy calls auth.uid(), auth.jwt(), auth.role(), auth.email() or current_setting() \
            directly, so PostgreSQL evaluates it once per row. Wrapped in a scalar subquery, \
            `(select auth.uid())`, it is evaluated once per statement (an InitPlan): on large tables \
            the difference is orders of magnitude.
            """,
        remediation: "Write `(select auth.uid())` instead of `auth.uid()` (likewise for the other functions).",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                // Roles that bypass RLS never evaluate the policy; an INSERT check reads only
                // the new rows, so a per-row call costs nothing more than a wrapped one.
                guard p.roles.contains(where: { !bypassingRoles.contains($0) }), p.command != "INSERT" else {
                    return nil
                }
                let bare = Set(p.expressions.flatMap(\.authCalls).filter { !$0.wrapped }.map(\.function)).sorted()
                guard !bare.isEmpty else { return nil }
                let calls = bare.map { $0 + "()" }.joined(separator: ", ")
                return FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) calls \(calls) once per row; wrap it as (select \(bare[0])()) to evaluate it once per statement",
                    metadata: p.baseMetadata.merging(["functions": calls]) { $1 })
            }
        },
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                alter table public.notes enable row level security;
                create policy "own notes" on public.notes for select to authenticated using (owner = auth.uid());
                """, reports: "policy \"own notes\" on public.notes"),
            .init(
                """
                -- Inside a subquery the bare call runs for every membership row read, per row.
                create table public.memberships (user_id uuid, org uuid);
                create table public.notes (id int primary key, org uuid);
                alter table public.notes enable row level security;
                create policy "members" on public.notes for select to authenticated using (
                  (select auth.uid()) is not null
                  and exists (select 1 from public.memberships m where m.org = notes.org and m.user_id = auth.uid()));
                """, reports: "policy \"members\" on public.notes"),
            .init(
                """
                -- Realtime Authorization policies are audited like storage policies.
                create table public.room_members (room text, user_id uuid);
                create policy "room members listen" on realtime.messages for select to authenticated using (
                  exists (select 1 from public.room_members r where r.room = realtime.topic() and r.user_id = auth.uid()));
                """, reports: "policy \"room members listen\" on realtime.messages"),
            .init(
                """
                -- Not exposed, but queried under RLS through an exposed SECURITY INVOKER function.
                create schema basejump;
                create table basejump.accounts (id uuid primary key, owner_id uuid);
                alter table basejump.accounts enable row level security;
                create policy "owners read" on basejump.accounts for select to authenticated using (owner_id = auth.uid());
                create function public.my_accounts() returns setof basejump.accounts language sql stable
                  set search_path = '' as $$ select * from basejump.accounts $$;
                """, reports: "policy \"owners read\" on basejump.accounts"),
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
            """,
            """
            -- service_role bypasses RLS: the expression never runs.
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "service" on public.notes for all to service_role using (auth.role() = 'service_role');
            """,
            """
            -- An INSERT check reads only the new rows.
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "add own" on public.notes for insert to authenticated with check (owner = auth.uid());
            """,
            """
            -- Wrapped inside the subquery too.
            create table public.memberships (user_id uuid, org uuid);
            create table public.notes (id int primary key, org uuid);
            alter table public.notes enable row level security;
            create policy "members" on public.notes for select to authenticated using (
              exists (select 1 from public.memberships m where m.org = notes.org and m.user_id = (select auth.uid())));
            """,
        ])

    /// Roles Supabase creates with BYPASSRLS.
    static let bypassingRoles: Set<String> = ["service_role", "postgres", "supabase_admin"]
}
