import Foundation
import Postgres

/// Everything that decides who may see or do what through the API: the content of a lock
/// file. Built from the catalog, or parsed back from a lock file.
public struct SecuritySurface: Sendable, Equatable {
    public var exposedSchemas: [String]
    public var tables: [Table]
    public var functions: [Function]
    public var buckets: [Bucket]
    /// Platform tables not read because reading them could run the project's code
    /// (`storage.buckets not read: it is a view, …`): their entries are unknown, not absent.
    public var unread: [String] = []

    public struct Table: Sendable, Equatable {
        /// "table", "partitioned table", "view", "materialized view", "foreign table".
        public var kind: String
        /// `schema.name`, identifiers quoted where needed.
        public var name: String
        public var rls: Bool
        public var forceRLS: Bool
        /// Grantee ("PUBLIC", "anon", "authenticated", "service_role") → privileges, sorted.
        public var grants: [String: [String]]
        public var policies: [Policy]
        public var header: String { "\(kind) \(name)" }
    }

    public struct Policy: Sendable, Equatable {
        public var name: String
        public var command: String
        public var permissive: Bool
        public var roles: [String]
        public var using: String?
        public var withCheck: String?
        /// What new rows are checked against (WITH CHECK, else USING for UPDATE and ALL).
        var effectiveCheck: String? { withCheck ?? (command == "UPDATE" || command == "ALL" ? using : nil) }
    }

    public struct Function: Sendable, Equatable {
        /// `schema.name(argument types)`.
        public var signature: String
        /// nil when the function does not set it.
        public var searchPath: String?
        /// Of PUBLIC, anon, authenticated, service_role: who may EXECUTE, sorted.
        public var execute: [String]
        public var header: String { "function \(signature)" }
    }

    public struct Bucket: Sendable, Equatable {
        public var id: String
        public var name: String
        public var isPublic: Bool
        public var fileSizeLimit: String?
        public var allowedMimeTypes: [String]?
        public var header: String { "bucket \(SQL.display(id))" }
    }

    public init(exposedSchemas: [String], tables: [Table] = [], functions: [Function] = [], buckets: [Bucket] = []) {
        self.exposedSchemas = exposedSchemas
        self.tables = tables
        self.functions = functions
        self.buckets = buckets
    }

    static let apiGrantees = ["PUBLIC", "anon", "authenticated", "service_role"]

    /// Sorted everywhere, so the same schema gives the same bytes whatever the creation order.
    mutating func normalize() {
        tables.sort { $0.name == $1.name ? $0.kind < $1.kind : $0.name < $1.name }
        for i in tables.indices {
            tables[i].policies.sort { $0.name < $1.name }
            for j in tables[i].policies.indices { tables[i].policies[j].roles.sort() }
            tables[i].grants = tables[i].grants.mapValues { Array(Set($0)).sorted() }
        }
        functions.sort { $0.signature < $1.signature }
        for i in functions.indices { functions[i].execute = Array(Set(functions[i].execute)).sorted() }
        buckets.sort { $0.id < $1.id }
    }
}

/// Reads the security surface in one read-only snapshot and one pipeline.
public enum SurfaceReader {
    static let tablesSQL = """
        select n.nspname as schema, c.relname as name, c.relkind::text as kind, c.relrowsecurity as rls,
               c.relforcerowsecurity as force,
               array(select case when x.grantee = 0 then 'PUBLIC' else pg_catalog.pg_get_userbyid(x.grantee)::text end
                            || '=' || x.privilege_type
                     from aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) x
                     where x.grantee = 0 or pg_catalog.pg_get_userbyid(x.grantee) in ('anon', 'authenticated', 'service_role')) as grants
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where (n.nspname = any($1::text[]) or n.nspname = 'storage') and c.relkind in ('r', 'p', 'v', 'm', 'f')
          and \(SQLParts.notExtensionMember("c"))
        """

    static let functionsSQL = """
        select n.nspname as schema, p.proname as name, pg_catalog.oidvectortypes(p.proargtypes) as args,
               (select substr(cfg, length('search_path=') + 1) from unnest(p.proconfig) cfg where cfg like 'search_path=%') as search_path,
               array(select case when x.grantee = 0 then 'PUBLIC' else pg_catalog.pg_get_userbyid(x.grantee)::text end
                     from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) x
                     where x.privilege_type = 'EXECUTE'
                       and (x.grantee = 0 or pg_catalog.pg_get_userbyid(x.grantee) in ('anon', 'authenticated', 'service_role'))) as execute
        from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        where p.prosecdef and \(SchemaLists.userSchema("n")) and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
        """

    /// Read through `PlatformTable`: storage.buckets is the project's to replace.
    static let bucketsSelect =
        "id, name, coalesce(public, false) as public, file_size_limit::text as file_size_limit, allowed_mime_types"
    static let bucketColumns = ["id", "name", "public", "file_size_limit", "allowed_mime_types"]

    public struct Options: Sendable {
        /// The schemas the Data API serves; nil reads `pgrst.db_schemas`, else `public`.
        public var exposedSchemas: [String]?
        public init(exposedSchemas: [String]? = nil) { self.exposedSchemas = exposedSchemas }
    }

    /// The engine's shape: the security surface of the database at `target`, read in one
    /// snapshot (a second connection helps with a large catalog's policies).
    public static func run(options: Options = Options(), on target: ConnectionString) throws -> SecuritySurface {
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        return try read(conn, exposedSchemas: options.exposedSchemas, helper: target)
    }

    /// With `helper`, a large catalog's policies are read the way the audit reads them.
    public static func read(
        _ conn: PostgresConnection, exposedSchemas: [String]? = nil,
        helper: ConnectionString? = nil
    ) throws -> SecuritySurface {
        let ownTransaction = !conn.inTransaction
        if ownTransaction { try conn.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
        defer { if ownTransaction { _ = try? conn.query("ROLLBACK") } }
        let first = try conn.query("select s.*, \(SidePolicies.countColumns) from (\(ExposedSchemas.query)) s").rows[0]
        let exposed = exposedSchemas ?? ExposedSchemas.detect(from: first).names
        let param = Auditor.postgresArray(exposed)
        // As in the audit: a surface of schemas that do not exist would compare as "nothing".
        if try Catalog.existingSchemas(conn, exposed).isEmpty {
            let names = exposed.map { SQL.display($0) }.joined(separator: ", ")
            throw ConfigurationError(
                "exposed schema\(exposed.count == 1 ? " \(names) does" : "s \(names) do") not exist in this database: name existing schemas in --exposed-schemas"
            )
        }
        var side: [SidePolicies] = []
        if let helper, ownTransaction, (Int(first["policy_count"] ?? "0") ?? 0) >= 1000 {
            side = try SidePolicies.launch(
                conn, helper: helper, exposed: param, tables: Int(first["policy_tables"] ?? "0") ?? 0)
        }
        // The policies statement is a cheap placeholder when the helpers read them.
        let policiesSQL = side.isEmpty ? CatalogDataset.policies.sql : "select 1 where $1::text[] is null"
        let out = try conn.pipeline(
            groups: [
                [PostgresStatement(tablesSQL, [param])], [PostgresStatement(policiesSQL, [param])],
                [PostgresStatement(functionsSQL)],
            ],
            isolation: .keepSuccesses
        ).map { $0[0] }
        for o in out { if let e = o.error { throw e } }

        var surface = SecuritySurface(exposedSchemas: exposed)
        var byKey: [String: Int] = [:]
        let kinds = [
            "r": "table", "p": "partitioned table", "v": "view", "m": "materialized view", "f": "foreign table",
        ]
        for r in out[0].result!.rows {
            let name = SQL.display(try r.decode("schema")) + "." + SQL.display(try r.decode("name"))
            var grants: [String: [String]] = [:]
            for g in try r.decode("grants") as [String] {
                let parts = g.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { grants[parts[0], default: []].append(parts[1]) }
            }
            byKey[name] = surface.tables.count
            surface.tables.append(
                .init(
                    kind: kinds[try r.decode("kind")] ?? "table", name: name, rls: try r.decode("rls"),
                    forceRLS: try r.decode("force"), grants: grants, policies: []))
        }
        let policies =
            side.isEmpty
            ? try AuditCatalog.policies(out[1].result!.rows)
            : try SidePolicies.collect(side) {
                try AuditCatalog.policies(try conn.query(CatalogDataset.policies.sql, [param]).rows)
            }
        for p in policies {
            let name = SQL.display(p.schema) + "." + SQL.display(p.table)
            guard let i = byKey[name] else { continue }
            surface.tables[i].policies.append(
                .init(
                    name: p.name, command: p.command, permissive: p.permissive, roles: p.roles,
                    using: p.using, withCheck: p.withCheck))
        }
        for r in out[2].result!.rows {
            let sig =
                SQL.display(try r.decode("schema")) + "." + SQL.display(try r.decode("name"))
                + "(" + (try r.decode("args") as String) + ")"
            surface.functions.append(
                .init(signature: sig, searchPath: try r.decode("search_path"), execute: try r.decode("execute")))
        }
        var bucketRows: [PostgresRow] = []
        switch try PlatformTable.read(conn, "storage", "buckets", columns: bucketColumns, select: bucketsSelect) {
        case .absent: break
        case .rows(let rows): bucketRows = rows
        case .unread(let u): surface.unread.append(u.line)
        }
        for r in bucketRows {
            surface.buckets.append(
                .init(
                    id: try r.decode("id"), name: try r.decode("name"), isPublic: try r.decode("public"),
                    fileSizeLimit: try r.decode("file_size_limit"), allowedMimeTypes: try r.decode("allowed_mime_types")
                ))
        }
        surface.normalize()
        return surface
    }
}
