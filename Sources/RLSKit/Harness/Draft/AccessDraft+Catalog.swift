import Foundation
import Postgres

/// What `rlskit init` reads from the catalog: the RLS tables of the exposed schemas with their
/// columns, single-column foreign keys, unique keys and policies, and the storage buckets.
extension AccessDraft {
    struct Column: Sendable {
        var name: String
        /// format_type(), e.g. "uuid" or "public.team_role".
        var type: String
        /// The type's name, or for a domain the name of its base type.
        var baseType: String
        /// An enum's labels in their declared order; empty for other types.
        var labels: [String]
        /// The referenced schema, table and column of a single-column foreign key.
        var references: (schema: String, table: String, column: String)?

        var referencesAuthUsers: Bool {
            references.map { $0.schema == "auth" && $0.table == "users" && $0.column == "id" } ?? false
        }
        /// A uuid that is a user's id: it references auth.users(id), or a key that does (profiles.id).
        var userVia: String?
        var holdsUserID: Bool { userVia != nil && baseType == "uuid" }
        /// Neither generated nor an identity column: a user could set it.
        var writable = true
        /// Named like a role, a flag or money, as lint 1009 reads names (`is_admin`, `plan`, `balance`).
        var privileged: Bool {
            Set(Lint.privilegeColumnWords).contains(String(name.lowercased().split(separator: "_").last ?? ""))
        }
    }

    struct Policy: Sendable {
        var name: String
        var command: String
        var roles: [String]
        var permissive: Bool
        var using: String?
        var check: String?
    }

    struct Table: Sendable {
        var schema: String
        var name: String
        var columns: [Column] = []
        var uniqueKeys: [Set<String>] = []
        var policies: [Policy] = []
        var qualifiedName: String { SQL.qualified(schema, name) }
        func column(_ name: String) -> Column? { columns.first { $0.name == name } }
    }

    struct Bucket: Sendable {
        var id: String
        var isPublic: Bool
    }

    static let columnsSQL = """
        select n.nspname::text as schema, c.relname::text as name, a.attname::text as col,
               format_type(a.atttypid, a.atttypmod) as type,
               coalesce((select b.typname::text from pg_type b where b.oid = t.typbasetype and t.typtype = 'd'), t.typname::text) as base,
               array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) as labels,
               fk.s as ref_schema, fk.t as ref_table, fk.c as ref_column,
               (a.attgenerated = '' and a.attidentity = '') as writable
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
          join pg_type t on t.oid = a.atttypid
          left join lateral (
            select fn.nspname::text as s, fc.relname::text as t, fa.attname::text as c
              from pg_constraint f join pg_class fc on fc.oid = f.confrelid
              join pg_namespace fn on fn.oid = fc.relnamespace
              join pg_attribute fa on fa.attrelid = f.confrelid and fa.attnum = f.confkey[1]
             where f.conrelid = c.oid and f.contype = 'f' and f.conkey = array[a.attnum] limit 1) fk on true
         where c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1)
         order by 1, 2, a.attnum
        """

    static let uniqueSQL = """
        select n.nspname::text as schema, c.relname::text as name,
               array(select a.attname::text from unnest(i.indkey) k(n) join pg_attribute a on a.attrelid = c.oid and a.attnum = k.n) as cols
          from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
         where i.indisunique and i.indpred is null and c.relrowsecurity and n.nspname = any($1)
        """

    static let policySQL = """
        select n.nspname::text as schema, c.relname::text as name, p.polname::text as policy, p.polcmd::text as cmd,
               p.polpermissive as permissive,
               array(select case when r = 0 then 'public' else pg_get_userbyid(r)::text end from unnest(p.polroles) r) as roles,
               pg_get_expr(p.polqual, p.polrelid) as using_expr, pg_get_expr(p.polwithcheck, p.polrelid) as check_expr
          from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any($1) order by 1, 2, 3
        """

    /// Read through `PlatformTable`: storage.buckets is the project's to replace.
    static let bucketSelect = "id::text as id, public as public"

    /// The RLS tables of `schemas` with what the draft needs, and storage.objects' policies.
    static func read(_ conn: PostgresConnection, schemas: [String]) throws -> (
        tables: [Table], storagePolicies: [Policy], buckets: [Bucket], unread: [String]
    ) {
        var tables: [String: Table] = [:]
        var order: [String] = []
        for r in try conn.query(columnsSQL, [schemas]).rows {
            let schema: String = try r.decode("schema"), name: String = try r.decode("name")
            let key = SQL.qualified(schema, name)
            if tables[key] == nil {
                tables[key] = Table(schema: schema, name: name)
                order.append(key)
            }
            let refTable: String? = try r.decode("ref_table")
            tables[key]!.columns.append(
                Column(
                    name: try r.decode("col"), type: try r.decode("type"), baseType: try r.decode("base"),
                    labels: try r.decode("labels"),
                    references: try refTable.map { (try r.decode("ref_schema"), $0, try r.decode("ref_column")) },
                    writable: try r.decode("writable")))
        }
        for r in try conn.query(uniqueSQL, [schemas]).rows {
            let key = SQL.qualified(try r.decode("schema"), try r.decode("name"))
            tables[key]?.uniqueKeys.append(Set(try r.decode("cols", as: [String].self)))
        }
        var storage: [Policy] = []
        let withStorage = schemas.contains("storage") ? schemas : schemas + ["storage"]
        for r in try conn.query(policySQL, [withStorage]).rows {
            let schema: String = try r.decode("schema"), name: String = try r.decode("name")
            let p = Policy(
                name: try r.decode("policy"), command: try r.decode("cmd"), roles: try r.decode("roles"),
                permissive: try r.decode("permissive"), using: try r.decode("using_expr"),
                check: try r.decode("check_expr"))
            if schema == "storage" && name == "objects" { storage.append(p) }
            tables[SQL.qualified(schema, name)]?.policies.append(p)
        }
        var buckets: [Bucket] = [], unread: [String] = []
        switch try PlatformTable.read(
            conn, "storage", "buckets", columns: ["id", "public"], select: bucketSelect, order: "id")
        {
        case .absent: break
        case .rows(let rows):
            buckets = try rows.map { Bucket(id: try $0.decode("id"), isPublic: try $0.decode("public")) }
        case .unread(let u): unread.append(u.line)
        }
        return (markUserColumns(order.map { tables[$0]! }), storage, buckets, unread)
    }

    /// The bodies of the functions the policies call (`is_admin()`), by name: they may read claims too.
    static func helperBodies(_ conn: PostgresConnection, tables: [Table], storagePolicies: [Policy]) throws
        -> [String: String]
    {
        let exprs = (tables.flatMap(\.policies) + storagePolicies).flatMap { [$0.using, $0.check].compactMap { $0 } }
        let called = Set(exprs.flatMap { Catalog.functionNames(in: $0) })
        guard !called.isEmpty else { return [:] }
        var out: [String: String] = [:]
        for r in try conn.query(
            """
            select proname::text as name, prosrc from pg_proc
             where proname = any($1) and prolang <> (select oid from pg_language where lanname = 'internal')
             order by oid
            """, [Array(called)]
        ).rows {
            out[try r.decode("name"), default: ""] += try r.decode("prosrc", as: String.self) + "\n"
        }
        return out
    }

    /// Sets `userVia` on columns referencing auth.users(id) directly or through one table's key.
    static func markUserColumns(_ tables: [Table]) -> [Table] {
        var keys: [String: String] = [:]  // "schema.table(column)" of a user-id key → how it is written
        for t in tables {
            for c in t.columns where c.referencesAuthUsers {
                keys[t.qualifiedName + "(" + SQL.ident(c.name) + ")"] = "\(t.qualifiedName)(\(SQL.ident(c.name)))"
            }
        }
        return tables.map { t in
            var t = t
            for i in t.columns.indices {
                guard let r = t.columns[i].references else { continue }
                if t.columns[i].referencesAuthUsers {
                    t.columns[i].userVia = "references auth.users(id)"
                } else if let key = keys[SQL.qualified(r.schema, r.table) + "(" + SQL.ident(r.column) + ")"] {
                    t.columns[i].userVia = "references \(key), a user's id"
                }
            }
            return t
        }
    }
}
