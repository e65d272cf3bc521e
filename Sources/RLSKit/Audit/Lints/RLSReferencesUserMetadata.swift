extension Lint {
    static let rlsReferencesUserMetadata = Lint(
        id: "0015", name: "rls_references_user_metadata", title: "Policy trusts user_metadata",
        level: .error, categories: [.security],
        description: """
            A policy reads `user_metadata` from the JWT (or raw_user_meta_data). Users can change their \
            own user metadata at any time (`supabase.auth.updateUser({ data })`), so a policy that \
            trusts it (a role, a tenant, a flag) can be satisfied by anyone.
            """,
        remediation:
            "Keep authorization data in `app_metadata` (only the server can write it) or in a table the user cannot change.",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.filter { p in p.expressions.contains(where: \.referencesUserMetadata) }.map { p in
                FindingDraft(
                    object: p.object,
                    detail: "\(p.label) trusts user_metadata, which every user can change for themselves",
                    metadata: p.baseMetadata)
            }
        },
        triggering: [
            .init(
                """
                create table public.reports (id int primary key);
                alter table public.reports enable row level security;
                create policy "admins read reports" on public.reports for select to authenticated
                  using (((select auth.jwt()) -> 'user_metadata' ->> 'role') = 'admin');
                """, reports: "policy \"admins read reports\" on public.reports")
        ],
        nonTriggering: [
            """
            create table public.reports (id int primary key);
            alter table public.reports enable row level security;
            create policy "admins read reports" on public.reports for select to authenticated
              using (((select auth.jwt()) -> 'app_metadata' ->> 'role') = 'admin');
            """
        ])
}
