extension Lint {
    static let authUidIsNullDisjunct = Lint(
        id: "1002", name: "auth_uid_is_null_disjunct", title: "Policy passes when there is no session",
        level: .error, categories: [.security],
        description: """
            A policy has an `auth.uid() IS NULL OR …` disjunct (or the same with auth.jwt() / \
            auth.email()). Without a session, auth.uid() is NULL, so the policy is true for every row: \
            every anonymous request, and every direct connection, passes.
            """,
        remediation:
            "Drop the IS NULL branch; if the server needs access, use service_role (which bypasses RLS) instead.",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.filter { $0.expressions.contains(where: \.hasIdentityIsNullDisjunct) }.map { p in
                FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) has an auth.uid() IS NULL disjunct: it is true for every row when there is no session",
                    metadata: p.baseMetadata)
            }
        },
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                alter table public.notes enable row level security;
                create policy "own notes" on public.notes for select
                  using ((select auth.uid()) is null or owner = (select auth.uid()));
                """, reports: "policy \"own notes\" on public.notes")
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "own notes" on public.notes for select
              using ((select auth.uid()) is not null and owner = (select auth.uid()));
            """
        ])
}
