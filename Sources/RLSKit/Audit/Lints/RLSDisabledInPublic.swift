extension Lint {
    static let rlsDisabledInPublic = Lint(
        id: "0013", name: "rls_disabled_in_public", title: "RLS disabled in an exposed schema",
        level: .error, categories: [.security],
        description: """
            A table in a schema the data API serves has row level security disabled. Whoever holds a \
            grant on it (and on older projects anon and authenticated get ALL by default) reads and \
            writes every row through the API.
            """,
        remediation: "`alter table <table> enable row level security;` and add policies for what the API may do.",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name, 'table' as kind, null::text as member,
                   format('table %s.%s is in exposed schema %s and has row level security disabled%s',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), \(SQLParts.ident("n.nspname")),
                          case when api.roles is null then ' (no API role has SELECT on it yet)'
                               else ', so ' || api.roles || ' can read every row' end) as detail,
                   jsonb_build_object('roles', coalesce(api.roles, ''))::text as metadata
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            cross join lateral (select \(SQLParts.apiRolesWithSelect("c"))) api(roles)
            where c.relkind in ('r', 'p') and not c.relrowsecurity and n.nspname = any($1::text[])
              and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, body text);
                grant select on public.notes to anon;
                """, reports: "table public.notes")
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, body text);
            alter table public.notes enable row level security;
            """,
            """
            -- Extension members are never the user's fault.
            create table public.ext_owned (id int);
            alter extension plpgsql add table public.ext_owned;
            """,
            """
            create schema internal;
            create table internal.notes (id int primary key, body text);
            """,
        ])
}
