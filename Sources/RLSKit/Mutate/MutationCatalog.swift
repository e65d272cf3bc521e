import Foundation
import Postgres

/// What the mutants are made of, read from the catalog before any is applied: each policy as
/// `pg_get_expr` deparses it (the exact text its undo restores), each table's RLS switch and
/// the API roles' privileges.
struct MutationCatalog: Sendable, Equatable {
    struct Policy: Sendable, Equatable {
        var schema: String
        var table: String
        var name: String
        /// SELECT, INSERT, UPDATE, DELETE or ALL.
        var command: String
        var permissive: Bool
        /// Role names; `public` for PUBLIC.
        var roles: [String]
        var using: String?
        var withCheck: String?

        var qualifiedTable: String { SQL.qualified(schema, table) }
        var displayTable: String { SQL.display(schema) + "." + SQL.display(table) }
    }

    struct Table: Sendable, Equatable {
        var schema: String
        var name: String
        var rls: Bool
        /// Grantee (anon, authenticated) → privileges.
        var grants: [String: Set<String>]
        /// Column name and type (`format_type`), in table order.
        var columns: [Column] = []
        /// Grantee → privilege → the columns it holds that privilege on (column grants only).
        var columnGrants: [String: [String: [String]]] = [:]
        var qualified: String { SQL.qualified(schema, name) }
        var display: String { SQL.display(schema) + "." + SQL.display(name) }

        struct Column: Sendable, Equatable {
            var name: String
            var type: String
        }

        func type(of column: String) -> String? { columns.first { $0.name == column }?.type }
    }

    var policies: [Policy]
    var tables: [Table]
    var functions: [DefinerFunction] = []

    static let policiesSQL = """
        select n.nspname as schema, c.relname as table_name, p.polname as name,
               case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE'
                             when 'd' then 'DELETE' else 'ALL' end as command,
               p.polpermissive as permissive,
               array(select case when r = 0 then 'public' else pg_catalog.pg_get_userbyid(r)::text end
                     from unnest(p.polroles) r order by 1) as roles,
               pg_catalog.pg_get_expr(p.polqual, p.polrelid) as using_expr,
               pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) as check_expr
        from pg_catalog.pg_policy p join pg_catalog.pg_class c on c.oid = p.polrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        -- Schemas the API does not expose but its roles may use: their policies still decide what
        -- an exposed function (SECURITY INVOKER) reads and writes there.
        where n.nspname = any($1::text[]) or n.nspname = 'storage' or (\(Self.reachable))
        order by 1, 2, 3
        """

    /// A user schema anon or authenticated may use, though the API does not expose it.
    static let reachable =
        SchemaLists.userSchema("n") + " and n.nspname <> 'rlskit'"
        + " and (has_schema_privilege('anon', n.oid, 'USAGE') or has_schema_privilege('authenticated', n.oid, 'USAGE'))"

    static let tablesSQL = """
        select n.nspname as schema, c.relname as name, c.relrowsecurity as rls,
               array(select pg_catalog.pg_get_userbyid(x.grantee)::text || '=' || x.privilege_type
                     from aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) x
                     where pg_catalog.pg_get_userbyid(x.grantee) in ('anon', 'authenticated')) as grants,
               array(select a.attname::text from pg_catalog.pg_attribute a
                     where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as column_names,
               array(select pg_catalog.format_type(a.atttypid, a.atttypmod) from pg_catalog.pg_attribute a
                     where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as column_types,
               array(select pg_catalog.pg_get_userbyid(x.grantee)::text || ' ' || x.privilege_type || ' ' || a.attname
                     from pg_catalog.pg_attribute a, aclexplode(a.attacl) x
                     where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                       and pg_catalog.pg_get_userbyid(x.grantee) in ('anon', 'authenticated')
                     order by a.attnum) as column_grants
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where (n.nspname = any($1::text[]) or (n.nspname = 'storage' and c.relname = 'objects')
               or (\(Self.reachable)))
          and c.relkind in ('r', 'p') and \(SQLParts.notExtensionMember("c"))
        order by 1, 2
        """

    static func read(_ conn: PostgresConnection, exposed: [String]) throws -> MutationCatalog {
        let param = Auditor.postgresArray(exposed)
        let policies = try conn.query(policiesSQL, [param]).rows.map { r in
            Policy(
                schema: try r.decode("schema"), table: try r.decode("table_name"), name: try r.decode("name"),
                command: try r.decode("command"), permissive: try r.decode("permissive"), roles: try r.decode("roles"),
                using: try r.decode("using_expr"), withCheck: try r.decode("check_expr"))
        }
        return MutationCatalog(
            policies: policies, tables: try tables(conn, exposed: exposed),
            functions: try DefinerFunction.read(conn, exposed: exposed))
    }

    /// The tables' RLS switches, columns and API grants.
    static func tables(_ conn: PostgresConnection, exposed: [String]) throws -> [Table] {
        try conn.query(tablesSQL, [Auditor.postgresArray(exposed)]).rows.map { r in
            var grants: [String: Set<String>] = [:]
            for g in try r.decode("grants") as [String] {
                let parts = g.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { grants[parts[0], default: []].insert(parts[1]) }
            }
            var columnGrants: [String: [String: [String]]] = [:]
            for g in try r.decode("column_grants") as [String] {
                let parts = g.split(separator: " ", maxSplits: 2).map(String.init)
                if parts.count == 3 { columnGrants[parts[0], default: [:]][parts[1], default: []].append(parts[2]) }
            }
            let names: [String] = try r.decode("column_names")
            let types: [String] = try r.decode("column_types")
            return Table(
                schema: try r.decode("schema"), name: try r.decode("name"), rls: try r.decode("rls"), grants: grants,
                columns: zip(names, types).map { Table.Column(name: $0.0, type: $0.1) }, columnGrants: columnGrants)
        }
    }

    /// The one policy named so, as the catalog has it now (nil when it is gone).
    static func policy(_ conn: PostgresConnection, like p: Policy) throws -> Policy? {
        try conn.query(policiesSQL, [Auditor.postgresArray([p.schema])]).rows.lazy.map { r in
            Policy(
                schema: try r.decode("schema"), table: try r.decode("table_name"), name: try r.decode("name"),
                command: try r.decode("command"), permissive: try r.decode("permissive"), roles: try r.decode("roles"),
                using: try r.decode("using_expr"), withCheck: try r.decode("check_expr"))
        }.first {
            $0.schema == p.schema && $0.table == p.table && $0.name == p.name
        }
    }
}

extension MutationCatalog.Policy {
    /// `to` list for SQL: PUBLIC as the keyword, others quoted.
    static func rolesSQL(_ roles: [String]) -> String {
        roles.map { $0 == "public" ? "public" : SQL.ident($0) }.joined(separator: ", ")
    }

    /// The statement that makes this policy, with the given clauses.
    func createSQL(using: String?, withCheck: String?) -> String {
        var s =
            "create policy \(SQL.ident(name)) on \(qualifiedTable) as \(permissive ? "permissive" : "restrictive")"
            + " for \(command.lowercased()) to \(Self.rolesSQL(roles))"
        if let using { s += " using (\(using))" }
        if let withCheck { s += " with check (\(withCheck))" }
        return s
    }

    var recreateSQL: [String] { [dropSQL, createSQL(using: using, withCheck: withCheck)] }
    var dropSQL: String { "drop policy \(SQL.ident(name)) on \(qualifiedTable)" }

    func alterSQL(_ clause: MutationClause, _ expression: String) -> String {
        "alter policy \(SQL.ident(name)) on \(qualifiedTable) \(clause == .using ? "using" : "with check") (\(expression))"
    }

    func expression(_ clause: MutationClause) -> String? { clause == .using ? using : withCheck }

    /// The privilege a role needs for this command to reach the policy at all.
    var privileges: Set<String> {
        switch command {
        case "ALL": ["SELECT", "INSERT", "UPDATE", "DELETE"]
        default: [command]
        }
    }
}

/// Which of a policy's two expressions a mutant changes.
enum MutationClause: String, Sendable {
    case using = "USING"
    case withCheck = "WITH CHECK"
}
