extension Lint {
    static let rlsEnabledNoPolicy = Lint(
        id: "0008", name: "rls_enabled_no_policy", title: "RLS enabled, no policy",
        level: .info, categories: [.security],
        description: """
            A table in an exposed schema has row level security enabled and no policy, so the API roles \
            can neither read nor write any row. That is safe, and sometimes intended (a table only \
            service_role uses), but often a policy is missing.
            """,
        remediation:
            "Add the policies the API needs, or move the table out of the exposed schemas if only the server uses it.",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name, 'table' as kind, null::text as member,
                   format('table %s.%s has row level security enabled and no policy: no API role can read or write it',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname"))) as detail,
                   null::text as metadata
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            where c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1::text[])
              and not exists (select 1 from pg_catalog.pg_policy p where p.polrelid = c.oid)
              and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.notes (id int primary key);
                alter table public.notes enable row level security;
                """, reports: "table public.notes")
        ],
        nonTriggering: [
            """
            create schema internal;
            create table internal.notes (id int primary key);
            alter table internal.notes enable row level security;
            """
        ])
}
