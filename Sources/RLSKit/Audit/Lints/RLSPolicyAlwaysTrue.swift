extension Lint {
    static let rlsPolicyAlwaysTrue = Lint(
        id: "0024", name: "rls_policy_always_true", title: "Write policy that is always true",
        level: .warn, categories: [.security],
        description: """
            A permissive INSERT, UPDATE, DELETE or ALL policy for API callers has `using (true)` or \
            `with check (true)`: anyone it applies to may write or delete every row. A `using (true)` \
            SELECT policy is an intended public read and is not reported.
            """,
        remediation:
            "Restrict the policy to the caller's own rows, e.g. `using ((select auth.uid()) = user_id)`, or limit it to service_role.",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.permissive, p.command != "SELECT", !p.apiRoles.isEmpty else { return nil }
                var parts: [String] = []
                if p.command != "INSERT", p.usingExpr?.isTrue == true { parts.append("using (true)") }
                if p.command != "DELETE", p.checkExpr?.isTrue == true { parts.append("with check (true)") }
                guard !parts.isEmpty else { return nil }
                let verb = ["INSERT": "insert", "UPDATE": "update", "DELETE": "delete"][p.command] ?? "read and write"
                return FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) has \(parts.joined(separator: " and ")): \(p.apiRoles.joined(separator: " and ")) may \(verb) any row",
                    metadata: p.baseMetadata)
            }
        },
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                alter table public.notes enable row level security;
                create policy "anyone deletes" on public.notes for delete to authenticated using (true);
                """, reports: "policy \"anyone deletes\" on public.notes"),
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                alter table public.notes enable row level security;
                create policy "anyone writes" on public.notes for insert with check (true);
                """, reports: "policy \"anyone writes\" on public.notes"),
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "public read" on public.notes for select using (true);
            """,
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "server writes" on public.notes for all to service_role using (true);
            """,
        ])
}
