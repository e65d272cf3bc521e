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
        /// With no user column of its own: the column pointing at a drafted table that has an
        /// owner (a product's shop), for `owner shop_id through public.shops`.
        var ownerThrough: (column: String, schema: String, table: String, note: String)?
        var qualifiedName: String { SQL.qualified(schema, name) }
        func column(_ name: String) -> Column? { columns.first { $0.name == name } }
    }

    struct Bucket: Sendable {
        var id: String
        var isPublic: Bool
    }

    /// Read through `PlatformTable`: storage.buckets is the project's to replace.
    static let bucketSelect = "id::text as id, public as public"

    /// The RLS tables of `schemas` with what the draft needs, storage.objects' policies, and the
    /// bodies of the helpers the policies call.
    static func read(_ conn: PostgresConnection, schemas: [String]) throws -> (
        tables: [Table], storagePolicies: [Policy], buckets: [Bucket], unread: [String], helpers: [String: String]
    ) {
        var tables: [String: Table] = [:]
        var order: [String] = []
        for r in try conn.query(Catalog.rlsColumnsSQL, [schemas]).rows {
            let schema: String = try r.decode("schema")
            let name: String = try r.decode("name")
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
        for r in try conn.query(Catalog.rlsUniqueKeysSQL, [schemas]).rows {
            let key = SQL.qualified(try r.decode("schema"), try r.decode("name"))
            tables[key]?.uniqueKeys.append(Set(try r.decode("cols", as: [String].self)))
        }
        var storage: [Policy] = []
        let withStorage = schemas.contains("storage") ? schemas : schemas + ["storage"]
        for r in try conn.query(Catalog.schemaPoliciesSQL, [withStorage]).rows {
            let schema: String = try r.decode("schema")
            let name: String = try r.decode("name")
            let p = Policy(
                name: try r.decode("policy"), command: try r.decode("cmd"), roles: try r.decode("roles"),
                permissive: try r.decode("permissive"), using: try r.decode("using_expr"),
                check: try r.decode("check_expr"))
            if schema == "storage" && name == "objects" { storage.append(p) }
            tables[SQL.qualified(schema, name)]?.policies.append(p)
        }
        var buckets: [Bucket] = []
        var unread: [String] = []
        switch try PlatformTable.read(
            conn, "storage", "buckets", columns: ["id", "public"], select: bucketSelect, order: "id")
        {
        case .absent: break
        case .rows(let rows):
            buckets = try rows.map { Bucket(id: try $0.decode("id"), isPublic: try $0.decode("public")) }
        case .unread(let u): unread.append(u.line)
        }
        // Foreign keys first, then the policies' comparisons for uuid columns without one. A key
        // found that way is not followed through references: the planner seeds an owner only
        // through auth.users, or `owner … through` the referenced table (whose owner it is).
        let byKeys = markUserColumns(order.map { tables[$0]! })
        let helpers = try helperBodies(conn, tables: byKeys, storagePolicies: storage)
        return (markPolicyUsers(byKeys, helpers: helpers), storage, buckets, unread, helpers)
    }

    /// The bodies of the functions the policies call (`is_admin()`), by name: they may read claims too.
    static func helperBodies(_ conn: PostgresConnection, tables: [Table], storagePolicies: [Policy]) throws
        -> [String: String]
    {
        let exprs = (tables.flatMap(\.policies) + storagePolicies).flatMap { [$0.using, $0.check].compactMap { $0 } }
        let called = Set(exprs.flatMap { Catalog.functionNames(in: $0) })
        guard !called.isEmpty else { return [:] }
        var out: [String: String] = [:]
        for r in try conn.query(Catalog.functionBodiesSQL, [Array(called)]).rows {
            out[try r.decode("name"), default: ""] += try r.decode("prosrc", as: String.self) + "\n"
        }
        return out
    }

    /// Sets `ownerThrough` on tables without a user column whose foreign key reaches a drafted
    /// table that has an owner, directly or through such tables (three levels at most).
    /// `grouped`: membership and group tables, and tables pointing at a group (their rows are a group's).
    static func markOwnersThrough(_ tables: [Table], grouped: Set<String>) -> [Table] {
        var out = tables
        var index: [String: Int] = [:]
        for (i, t) in out.enumerated() where !grouped.contains(t.qualifiedName) { index[t.qualifiedName] = i }
        for _ in 0..<3 {
            for i in out.indices where out[i].ownerThrough == nil && !out[i].columns.contains(where: \.holdsUserID) {
                for c in out[i].columns where Text.name(c.name) != nil {
                    guard let r = c.references, let j = index[SQL.qualified(r.schema, r.table)], j != i,
                        out[j].columns.contains(where: \.holdsUserID) || out[j].ownerThrough != nil
                    else { continue }
                    let via =
                        out[j].columns.first(where: \.holdsUserID).map { "its \(SQL.ident($0.name))" }
                        ?? "its own parent"
                    out[i].ownerThrough = (
                        c.name, r.schema, r.table,
                        "references \(SQL.qualified(r.schema, r.table))(\(SQL.ident(r.column))), owned through \(via)"
                    )
                    break
                }
            }
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
