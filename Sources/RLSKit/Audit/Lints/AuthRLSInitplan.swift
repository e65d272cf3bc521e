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
                """, reports: "policy \"own notes\" on public.notes")
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
            """
        ])
}
