extension Lint {
    static let unindexedPolicyColumn = Lint(
        id: "1005", name: "unindexed_policy_column", title: "Owner column used by a policy has no index",
        level: .warn, categories: [.performance],
        description: """
            A policy compares a column with the caller's identity (`user_id = (select auth.uid())`), \
            but no index starts with that column. Every API query on the table then reads the whole \
            table to find the caller's rows.
            """,
        remediation: "`create index on <table> (<column>);`",
        logic: .swift(needs: [.policies, .indexColumns]) { catalog in
            var seen = Set<String>()
            var out: [FindingDraft] = []
            let order = catalog.policies.indices.sorted { catalog.policies[$0].name < catalog.policies[$1].name }
            for i in order where catalog.policies[i].reachedByAPI(catalog) {
                let p = catalog.policies[i]
                let indexed = catalog.indexedLeadingColumns[p.tableName] ?? []
                // Only USING filters the rows a query reads; WITH CHECK tests the new row alone.
                for column in (p.usingExpr?.bindings ?? []).sorted() where isPlainColumn(column) {
                    let name =
                        column.hasPrefix("\"")
                        ? String(column.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"") : column
                    guard !indexed.contains(name), seen.insert(p.tableName + "." + name).inserted else { continue }
                    out.append(
                        FindingDraft(
                            object: AuditObject(schema: p.schema, name: p.table, kind: "column", member: name),
                            detail:
                                "column \(p.displayTable).\(AuditNames.ident(name)) is compared with the caller by \(p.label), but no index starts with it",
                            metadata: ["policy": p.name]))
                }
            }
            return out
        },
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, user_id uuid);
                alter table public.notes enable row level security;
                create policy "own notes" on public.notes for select using (user_id = (select auth.uid()));
                """, reports: "column public.notes.user_id"),
            .init(
                """
                -- Not exposed, but queried under RLS through an exposed SECURITY INVOKER function.
                create schema basejump;
                create table basejump.accounts (id uuid primary key, owner_id uuid);
                alter table basejump.accounts enable row level security;
                create policy "owners read" on basejump.accounts for select to authenticated
                  using (owner_id = (select auth.uid()));
                create function public.my_accounts() returns setof basejump.accounts language sql stable
                  set search_path = '' as $$ select * from basejump.accounts $$;
                """, reports: "column basejump.accounts.owner_id"),
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, user_id uuid);
            create index on public.notes (user_id);
            alter table public.notes enable row level security;
            create policy "own notes" on public.notes for select using (user_id = (select auth.uid()));
            """,
            """
            -- Compared only in an INSERT check: no lookup filters on it.
            create table public.notes (id int primary key, user_id uuid);
            alter table public.notes enable row level security;
            create policy "add own" on public.notes for insert with check (user_id = (select auth.uid()));
            """,
            """
            -- Not exposed and no exposed function queries it.
            create schema basejump;
            create table basejump.accounts (id uuid primary key, owner_id uuid);
            alter table basejump.accounts enable row level security;
            create policy "owners read" on basejump.accounts for select to authenticated
              using (owner_id = (select auth.uid()));
            """,
        ])

    /// A bare column name (not a path expression or a function call).
    static func isPlainColumn(_ text: String) -> Bool {
        if text.hasPrefix("\"") { return text.hasSuffix("\"") && text.count > 2 }
        return !text.isEmpty && text.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber || $0 == "$" }
            && !(text.first?.isNumber ?? true)
    }
}
