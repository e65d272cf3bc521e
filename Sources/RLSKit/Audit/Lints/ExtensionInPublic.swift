extension Lint {
    static let extensionInPublic = Lint(
        id: "0014", name: "extension_in_public", title: "Extension installed in public",
        level: .warn, categories: [.security],
        description: """
            An extension's functions, types and tables live in public, the schema the data API serves, \
            so they become part of the API surface (callable as RPC, listed in the schema cache), and \
            later upgrades of the extension collide with your own objects.
            """,
        remediation:
            "Install extensions in schema `extensions`: `alter extension <extension> set schema extensions;` (or drop and recreate it there).",
        logic: .sql(
            """
            select n.nspname as schema, e.extname as name, 'extension' as kind, null::text as member,
                   format('extension %s is installed in schema %s', \(SQLParts.ident("e.extname")), \(SQLParts.ident("n.nspname"))) as detail,
                   jsonb_build_object('version', e.extversion)::text as metadata
            from pg_catalog.pg_extension e
            join pg_catalog.pg_namespace n on n.oid = e.extnamespace
            where n.nspname = 'public' or n.nspname = any($1::text[])
            """),
        triggering: [
            .init("create extension if not exists pg_trgm with schema public;", reports: "extension public.pg_trgm")
        ],
        nonTriggering: ["create extension if not exists pg_trgm with schema extensions;"])
}
