extension Lint {
    static let policyExistsRLSDisabled = Lint(
        id: "0007", name: "policy_exists_rls_disabled", title: "Policies exist but RLS is disabled",
        level: .error, categories: [.security],
        description: """
            The table has policies, but row level security is disabled on it, so the policies are \
            ignored and every role with a grant sees and changes every row. Usually RLS was meant to be \
            on and someone forgot (or a migration turned it off).
            """,
        remediation: "`alter table <table> enable row level security;`",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name, 'table' as kind, null::text as member,
                   format('table %s.%s has %s polic%s but row level security is disabled, so %s',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), p.count, case when p.count = 1 then 'y' else 'ies' end,
                          case when p.count = 1 then 'it is not applied' else 'none of them is applied' end) as detail,
                   jsonb_build_object('policies', p.names)::text as metadata
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            cross join lateral (select count(*) as count, string_agg(pol.polname, ', ' order by pol.polname) as names
                                from pg_catalog.pg_policy pol where pol.polrelid = c.oid) p
            where c.relkind in ('r', 'p') and not c.relrowsecurity and p.count > 0
              and \(SchemaLists.notSystem("n")) and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                create policy "own notes" on public.notes for select using (owner = (select auth.uid()));
                """, reports: "table public.notes")
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "own notes" on public.notes for select using (owner = (select auth.uid()));
            """
        ])
}
