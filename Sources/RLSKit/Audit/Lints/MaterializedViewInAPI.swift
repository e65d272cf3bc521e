extension Lint {
    static let materializedViewInAPI = Lint(
        id: "0016", name: "materialized_view_in_api", title: "Materialized view in the API",
        level: .warn, categories: [.security],
        description: """
        A materialized view in an exposed schema is selectable by anon or authenticated. \
        Materialized views have no row level security, so every row it holds is readable through \
        the API, whatever the policies of the tables it was built from.
        """,
        remediation: "Move it to a schema the API does not expose, or revoke SELECT from anon and authenticated.",
        logic: .sql("""
        select n.nspname as schema, c.relname as name, 'materialized view' as kind, null::text as member,
               format('materialized view %s.%s is selectable by %s through the API and has no row level security',
                      \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), api.roles) as detail,
               jsonb_build_object('roles', api.roles)::text as metadata
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        cross join lateral (select \(SQLParts.apiRolesWithSelect("c"))) api(roles)
        where c.relkind = 'm' and n.nspname = any($1::text[]) and api.roles is not null
          and \(SQLParts.notExtensionMember("c"))
        """),
        triggering: [.init("""
        create materialized view public.stats as select 1 as n;
        grant select on public.stats to anon;
        """, reports: "materialized view public.stats")],
        nonTriggering: ["""
        create materialized view public.stats as select 1 as n;
        revoke all on public.stats from public, anon, authenticated;
        """])
}
