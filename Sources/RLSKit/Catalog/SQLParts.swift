import Foundation

/// Schemas that belong to the platform or to PostgreSQL itself: lints about the user's own
/// objects skip them (storage policies are audited by dedicated lints).
enum SchemaLists {
    static let system = ["pg_catalog", "information_schema", "pg_toast"]
    static let managed = [
        "auth", "storage", "extensions", "graphql", "graphql_public", "realtime", "_realtime",
        "supabase_functions", "supabase_migrations", "vault", "pgsodium", "pgsodium_masks",
        "pgbouncer", "net", "cron", "pgtle", "_analytics", "pgmq", "topology", "tiger",
    ]
    /// SQL condition: `alias.nspname` is not a system schema.
    static func notSystem(_ alias: String) -> String {
        "\(alias).nspname not in (\(sqlList(system))) and \(alias).nspname !~ '^pg_(toast_)?temp_'"
    }
    /// SQL condition: `alias.nspname` is neither a system nor a platform-managed schema.
    static func userSchema(_ alias: String) -> String {
        notSystem(alias) + " and \(alias).nspname not in (\(sqlList(managed)))"
    }
    static func sqlList(_ names: [String]) -> String { names.map { "'\($0)'" }.joined(separator: ", ") }
}

/// SQL snippets shared by catalog queries: the lints', the audit's and the harness's.
enum SQLParts {
    /// SQL: the identifier `expr` as text for sentences that name objects, as `SQL.display`
    /// writes it: quoted by the server, `\\` and line breaks escaped.
    static func ident(_ expr: String) -> String {
        "replace(replace(replace(pg_catalog.quote_ident(\(expr)), E'\\\\', E'\\\\\\\\'), chr(10), E'\\\\n'), chr(13), E'\\\\r')"
    }
    /// A lint query: relations of `relkind` (which have no row level security: foreign tables,
    /// materialized views) in the exposed schemas that anon or authenticated may select.
    static func selectableWithoutRLS(relkind: Character, kind: String) -> String {
        """
        select n.nspname as schema, c.relname as name, '\(kind)' as kind, null::text as member,
               format('\(kind) %s.%s is selectable by %s through the API and has no row level security',
                      \(ident("n.nspname")), \(ident("c.relname")), api.roles) as detail,
               jsonb_build_object('roles', api.roles)::text as metadata
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        cross join lateral (select \(apiRolesWithSelect("c"))) api(roles)
        where c.relkind = '\(relkind)' and n.nspname = any($1::text[]) and api.roles is not null
          and \(notExtensionMember("c"))
        """
    }

    /// True when the pg_class row `alias` belongs to an extension (never the user's fault).
    static func notExtensionMember(_ alias: String, catalog: String = "pg_class") -> String {
        "not exists (select 1 from pg_catalog.pg_depend dep where dep.classid = '\(catalog)'::regclass and dep.objid = \(alias).oid and dep.deptype = 'e')"
    }
    /// True when anon or authenticated (those that exist) may SELECT the relation `alias`.
    static func apiRolesCanSelect(_ alias: String) -> String {
        "exists (select 1 from pg_catalog.pg_roles ar where ar.rolname in ('anon', 'authenticated') and has_table_privilege(ar.oid, \(alias).oid, 'SELECT'))"
    }
    /// The API roles (of anon, authenticated) that may SELECT `alias`, as a comma list.
    static func apiRolesWithSelect(_ alias: String) -> String {
        "(select string_agg(ar.rolname, ', ' order by ar.rolname) from pg_catalog.pg_roles ar where ar.rolname in ('anon', 'authenticated') and has_table_privilege(ar.oid, \(alias).oid, 'SELECT'))"
    }
    /// A pg_policy row's roles by name, "public" for PUBLIC.
    static func policyRoleNames(_ policy: String) -> String {
        "array(select case when r = 0 then 'public' else pg_catalog.pg_get_userbyid(r)::text end from unnest(\(policy).polroles) r)"
    }
    /// A pg_type row's name, or for a domain the name of the type it is based on.
    static func baseTypeName(_ type: String) -> String {
        "coalesce((select b.typname::text from pg_catalog.pg_type b where b.oid = \(type).typbasetype and \(type).typtype = 'd'), \(type).typname::text)"
    }
    /// Every label of a pg_type row's enum, in order (empty for other types).
    static func enumLabels(_ type: String) -> String {
        "array(select e.enumlabel::text from pg_catalog.pg_enum e where e.enumtypid = \(type).oid order by e.enumsortorder)"
    }
    /// `from … limit 1` of the single-column foreign key on column `attnum` of `relid`: the
    /// caller selects from `fn` (the referenced schema), `fc` (table) and `fa` (column).
    static func singleColumnReference(_ relid: String, _ attnum: String) -> String {
        """
        from pg_catalog.pg_constraint f
        join pg_catalog.pg_class fc on fc.oid = f.confrelid
        join pg_catalog.pg_namespace fn on fn.oid = fc.relnamespace
        join pg_catalog.pg_attribute fa on fa.attrelid = f.confrelid and fa.attnum = f.confkey[1]
        where f.conrelid = \(relid) and f.contype = 'f' and f.conkey = array[\(attnum)]
        limit 1
        """
    }
    static let securityInvoker =
        "exists (select 1 from unnest(coalesce(%@.reloptions, '{}')) o where o ~* '^security_invoker=(true|on|yes|1|t|y)$')"
    static func isSecurityInvoker(_ alias: String) -> String {
        securityInvoker.replacingOccurrences(of: "%@", with: alias)
    }
}
