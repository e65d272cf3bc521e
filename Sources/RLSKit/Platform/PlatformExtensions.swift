import Postgres

/// What every Supabase project has beyond auth and storage: the extensions the platform offers.
/// Real ones come from the server; the others are rlskit's stand-ins (`sql/extensions`), offered
/// to the throwaway server next to the real extension files.
public enum PlatformExtensions {
    /// Options for a throwaway server that behaves as the platform's: the stand-in extension
    /// files, pg_cron and pg_stat_statements preloaded where installed, and the platform's
    /// search path (so pgcrypto's and uuid-ossp's functions, in `extensions`, resolve).
    public static var clusterOptions: LocalCluster.Options {
        var o = LocalCluster.Options()
        for f in BuiltInSQL.all where f.path.hasPrefix("extensions/") {
            o.extensionFiles[String(f.path.dropFirst("extensions/".count))] = f.contents
        }
        o.preloadLibraries = ["pg_stat_statements", "pg_cron"]
        o.trustedExtensions = privileged
        o.settings["search_path"] = #"'"$user", public, extensions'"#
        // pg_cron runs in the database rlskit uses; no job ever starts during a check.
        o.settings["cron.database_name"] = "'postgres'"
        o.settings["cron.max_running_jobs"] = "0"
        return o
    }

    /// The same, preloading pg_cron and pg_stat_statements only where `files` mention them:
    /// preloading costs every cold start, and most projects use neither.
    public static func clusterOptions(for files: [SQLFile]) -> LocalCluster.Options {
        var o = clusterOptions
        o.preloadLibraries = o.preloadLibraries.filter { lib in
            files.contains { $0.contents.range(of: lib, options: .caseInsensitive) != nil }
        }
        return o
    }

    /// Extensions the platform lets its non-superuser `postgres` create (supautils'
    /// `privileged_extensions`); marked trusted on the throwaway server. Others need a superuser.
    public static let privileged = [
        "address_standardizer", "address_standardizer_data_us", "autoinc", "bloom", "btree_gin", "btree_gist",
        "citext", "cube", "dblink", "dict_int", "dict_xsyn", "earthdistance", "fuzzystrmatch", "hstore", "http",
        "hypopg", "index_advisor", "insert_username", "intarray", "isn", "ltree", "moddatetime", "orioledb", "pg_cron",
        "pg_graphql", "pg_hashids", "pg_jsonschema", "pg_net", "pg_partman", "pg_repack", "pg_stat_monitor",
        "pg_stat_statements", "pg_tle", "pg_trgm", "pg_walinspect", "pgaudit", "pgcrypto", "pgjwt", "pg_prewarm",
        "pgmq",
        "pgroonga", "pgroonga_database", "pgrouting", "pgrowlocks", "pgstattuple", "pgsodium", "pgtap", "plcoffee",
        "pljava", "plls", "plpgsql", "plpgsql_check", "plv8", "postgis",
        "postgis_raster", "postgis_sfcgal", "postgis_tiger_geocoder", "postgis_topology", "postgres_fdw", "refint",
        "rum", "seg", "sslinfo", "supabase_vault", "supautils", "tablefunc", "tcn", "timescaledb", "tsm_system_rows",
        "tsm_system_time", "unaccent", "uuid-ossp", "vector", "wrappers",
    ]

    /// Names of the stand-in extensions rlskit ships.
    public static var standInNames: [String] {
        BuiltInSQL.all.compactMap { f in
            f.path.hasPrefix("extensions/") && f.path.hasSuffix(".control")
                ? String(f.path.dropFirst("extensions/".count).dropLast(".control".count)) : nil
        }.sorted()
    }

    /// Installed extensions that are rlskit stand-ins (their comment says so), in name order.
    public static func standInsInstalled(_ conn: PostgresConnection) throws -> [String] {
        try conn.query(
            """
            select extname::text as name from pg_catalog.pg_extension
             where coalesce(obj_description(oid, 'pg_extension'), '') like 'rlskit stand-in:%' order by 1
            """
        ).rows.map { try $0.decode("name") }
    }
}

extension PlatformExtensions {
    /// What differs from the real extension, for the summary.
    static let caveats: [String: String] = [
        "vector": "similarity results are not meaningful",
        "pg_net": "requests recorded in net.http_request_queue, never sent",
        "http": "requests recorded in rlskit_http.requests, never sent",
        "supabase_vault": "secrets not encrypted",
        "pg_graphql": "queries not executed",
        "pg_jsonschema": "common keywords only",
        "pg_tle": "extensions registered, never created",
        "pg_stat_monitor": "no statistics collected",
        "wrappers": "foreign tables declared, never queried",
    ]

    /// `stand-in extensions: pg_net (requests recorded …), vector (…)`, or nil for none.
    public static func summary(_ names: [String]) -> String? {
        guard !names.isEmpty else { return nil }
        return "stand-in extensions: "
            + names.map { n in caveats[n].map { "\(n) (\($0))" } ?? n }.joined(separator: ", ")
    }
}
