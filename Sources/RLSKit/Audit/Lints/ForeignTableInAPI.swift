extension Lint {
    static let foreignTableInAPI = Lint(
        id: "0017", name: "foreign_table_in_api", title: "Foreign table in the API",
        level: .warn, categories: [.security],
        description: """
        A foreign table in an exposed schema is selectable by anon or authenticated. Foreign tables \
        have no row level security, so the remote rows are readable through the API.
        """,
        remediation: "Move it to a schema the API does not expose, or revoke SELECT from anon and authenticated.",
        logic: .sql("""
        select n.nspname as schema, c.relname as name, 'foreign table' as kind, null::text as member,
               format('foreign table %s.%s is selectable by %s through the API and has no row level security',
                      \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), api.roles) as detail,
               jsonb_build_object('roles', api.roles)::text as metadata
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        cross join lateral (select \(SQLParts.apiRolesWithSelect("c"))) api(roles)
        where c.relkind = 'f' and n.nspname = any($1::text[]) and api.roles is not null
          and \(SQLParts.notExtensionMember("c"))
        """),
        triggering: [.init("""
        create foreign data wrapper rlskit_dummy_fdw;
        create server rlskit_dummy_server foreign data wrapper rlskit_dummy_fdw;
        create foreign table public.remote_notes (id int) server rlskit_dummy_server;
        grant select on public.remote_notes to authenticated;
        """, reports: "foreign table public.remote_notes")],
        nonTriggering: ["""
        create foreign data wrapper rlskit_dummy_fdw;
        create server rlskit_dummy_server foreign data wrapper rlskit_dummy_fdw;
        create foreign table public.remote_notes (id int) server rlskit_dummy_server;
        revoke all on public.remote_notes from public, anon, authenticated;
        """])
}
