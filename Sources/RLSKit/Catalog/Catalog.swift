import Foundation
import Postgres

/// What the live catalog says about one table: enough to seed rows and judge policies.
struct TableInfo: Sendable {
    struct ColumnInfo: Sendable {
        var name: String
        /// format_type(), e.g. "character varying(255)".
        var type: String
        /// pg_type.typcategory: S string, N numeric, B bool, D date/time, U user (uuid, json), E enum, A array…
        var category: String
        var typeName: String
        /// The type's name, or for a domain the name of the type it is based on.
        var baseTypeName: String = ""
        var notNull: Bool
        var hasDefault: Bool
        /// Identity ('a'/'d') or generated ('s') columns are never written.
        var identity: String
        var generated: String
        var enumLabel: String?
        /// Every label of an enum type, in order (candidates for a check constraint).
        var enumLabels: [String] = []
        /// "schema.table(column)" this column references, if a single-column foreign key.
        var references: String?
        /// The default is the signed-in user's id (`auth.uid()`): NULL when seeded as service_role.
        var userDefault = false
        var writable: Bool { identity != "a" && generated.isEmpty }
    }

    var schema: String
    var name: String
    var exists: Bool
    var rlsEnabled: Bool
    /// service_role may insert and read back (the seed script looks up existing rows).
    var serviceRoleCanInsert: Bool
    var columns: [ColumnInfo]
    /// Column lists of unique indexes (expressions left out).
    var uniqueKeys: [[String]]
    /// Policy expressions (USING and WITH CHECK), for finding policies that read JWT claims.
    var policyTexts: [String]
    var foreignKeys: [ForeignKey] = []
    /// The WITH CHECK of each permissive UPDATE (or ALL) policy, as pg_get_expr prints it: the
    /// constants they pin (`UpdatePins`) are set by an attack that moves a row, as a caller would.
    var updateChecks: [String] = []
    /// Check constraints on a single column: column → expressions (as pg_get_expr prints them).
    var checks: [String: [String]] = [:]
    /// Tables this one reaches through foreign keys, by `qualifiedName` (parents to seed).
    var parents: [String: TableInfo] = [:]
    /// Declared tables of the same access file, by `qualifiedName`: their owner and seed lines
    /// also hold when they are seeded as parents (set by the planner).
    var declared: [String: Declared] = [:]
    /// What an access file says about a table's rows; the catalog keeps it for the parent seeder.
    typealias Declared = (owner: String, through: String, seeds: [(column: String, expression: String)])
    /// `schema.name`, quoted where needed.
    var qualifiedName: String { SQL.qualified(schema, name) }
    var sqlName: String { SQL.qualified(schema, name) }

    func column(_ name: String) -> ColumnInfo? { columns.first { $0.name == name } }

    /// A foreign key, single- or multi-column: `columns[i]` references `refColumns[i]` of `refTable`.
    struct ForeignKey: Sendable {
        var name: String
        var columns: [String]
        var refSchema: String
        var refTable: String
        var refColumns: [String]
        var refName: String { SQL.qualified(refSchema, refTable) }
        var toAuthUsers: Bool { refSchema == "auth" && refTable == "users" }
    }
}

enum Catalog {
    // Every query takes all tables at once ($1 = qualified names) and tags rows with their position.
    // Tables reached from them through foreign keys (auth.users left out) follow as o > count($1):
    // parents the seeder may have to fill (NOT NULL keys, ownership through a parent, nullable
    // keys a policy reads).
    static let tablesCTE = """
        with recursive q0 as (select to_regclass(n) as oid, o from unnest($1::text[]) with ordinality u(n, o)),
        reach(oid) as (
          select oid from q0 where oid is not null
          union
          -- Nullable keys too: a seeder that sets one (an owner column referencing a profile table) needs the parent.
          select f.confrelid from reach r join pg_constraint f on f.conrelid = r.oid and f.contype = 'f'
           where f.confrelid is distinct from to_regclass('auth.users')),
        q as (
          select oid, o from q0
          union all
          select oid, (select count(*) from q0) + row_number() over (order by oid) from reach
           where oid not in (select oid from q0 where oid is not null))

        """

    static let headSQL =
        tablesCTE + """
            select q.o::int as o, n.nspname::text as schema, c.relname::text as name, c.relrowsecurity as rls,
                   exists (select 1 from pg_roles where rolname = 'service_role')
                     and has_table_privilege('service_role', c.oid, 'INSERT')
                     and has_table_privilege('service_role', c.oid, 'SELECT')
                     -- serial and identity columns draw from sequences service_role must be able to use
                     and not exists (select 1 from pg_depend d join pg_class s on s.oid = d.objid and s.relkind = 'S'
                                      where d.refobjid = c.oid and d.deptype in ('a', 'i')
                                        and case when s.relkind = 'S' then not has_sequence_privilege('service_role', s.oid, 'USAGE') end) as service_insert
              from q join pg_class c on c.oid = q.oid join pg_namespace n on n.oid = c.relnamespace
             where c.relkind in ('r', 'p')
            """

    static let columnsSQL =
        tablesCTE + """
            select q.o::int as o, a.attname as name, format_type(a.atttypid, a.atttypmod) as type, t.typcategory::text as category,
                   t.typname::text as type_name,
                   \(SQLParts.baseTypeName("t")) as base_type,
                   a.attnotnull as not_null, a.atthasdef as has_default,
                   a.attidentity::text as identity, a.attgenerated::text as generated,
                   (select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder limit 1) as enum_label,
                   \(SQLParts.enumLabels("t")) as enum_labels,
                   coalesce((select pg_get_expr(d.adbin, d.adrelid) ~* '\\mauth\\.uid\\s*\\(|request\\.jwt\\.claim'
                               from pg_attrdef d where d.adrelid = a.attrelid and d.adnum = a.attnum), false) as user_default,
                   (select fn.nspname || '.' || fc.relname || '(' || fa.attname || ')'
                      \(SQLParts.singleColumnReference("a.attrelid", "a.attnum"))) as refs
              from q join pg_attribute a on a.attrelid = q.oid join pg_type t on t.oid = a.atttypid
             where a.attnum > 0 and not a.attisdropped
             order by q.o, a.attnum
            """

    static let uniqueSQL =
        tablesCTE + """
            select q.o::int as o, array(select a.attname::text from unnest(i.indkey) with ordinality k(n, o)
                         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.o) as cols,
                   0 <> all(i.indkey) and i.indpred is null as plain
              from q join pg_index i on i.indrelid = q.oid where i.indisunique
            """

    static let policySQL =
        tablesCTE + """
            select q.o::int as o, coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' '
                     || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '') as expr,
                   case when p.polcmd in ('w', '*') and p.polpermissive then pg_get_expr(p.polwithcheck, p.polrelid) end
                     as update_check
              from q join pg_policy p on p.polrelid = q.oid
            """

    static let constraintSQL =
        tablesCTE + """
            select q.o::int as o, f.contype::text as kind, f.conname::text as name,
                   array(select a.attname::text from unnest(f.conkey) with ordinality k(n, i)
                         join pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.n order by k.i) as cols,
                   array(select a.attname::text from unnest(f.confkey) with ordinality k(n, i)
                         join pg_attribute a on a.attrelid = f.confrelid and a.attnum = k.n order by k.i) as ref_cols,
                   fn.nspname::text as ref_schema, fc.relname::text as ref_table,
                   case when f.contype = 'c' then pg_get_expr(f.conbin, f.conrelid) end as expr
              from q join pg_constraint f on f.conrelid = q.oid
              left join pg_class fc on fc.oid = f.confrelid left join pg_namespace fn on fn.oid = fc.relnamespace
             where f.contype = 'f' or (f.contype = 'c' and cardinality(f.conkey) = 1)
             order by q.o, f.conname
            """

    static func table(_ conn: PostgresConnection, schema: String, name: String) throws -> TableInfo {
        try tables(conn, [(schema, name)])[0]
    }

    /// Reads many tables in one pipelined round trip (plus one for helper function bodies).
    static func tables(_ conn: PostgresConnection, _ names: [(schema: String, name: String)]) throws
        -> [TableInfo]
    {
        let regs = names.map { SQL.qualified($0.schema, $0.name) }
        // The planner's estimates for these grow with the list: on thousands of tables they pass
        // jit_above_cost, and compiling them takes longer than running them. Put back after.
        let local = conn.inTransaction
        let jit = conn.serverVersion >= 110000
        if jit { try conn.query("select set_config('jit', 'off', \(local))") }
        defer { if jit && !local { _ = try? conn.query("reset jit") } }
        let results = try conn.pipeline(
            [headSQL, columnsSQL, uniqueSQL, policySQL, constraintSQL].map { PostgresStatement($0, [regs]) },
            isolation: .none)
        func rows(_ i: Int) throws -> [Int: [PostgresRow]] {
            switch results[i] {
            case .success(let r): return try Dictionary(grouping: r.rows) { try $0.decode("o", as: Int.self) - 1 }
            case .failure(let e): throw e
            case .skipped: throw PostgresError(kind: .client, message: "catalog query was not run")
            }
        }
        let heads = try rows(0)
        let columns = try rows(1)
        let uniques = try rows(2)
        let policies = try rows(3)
        let constraints = try rows(4)
        func info(_ k: Int, _ schema: String, _ name: String) throws -> TableInfo {
            guard let head = heads[k]?.first else {
                return TableInfo(
                    schema: schema, name: name, exists: false, rlsEnabled: false, serviceRoleCanInsert: false,
                    columns: [], uniqueKeys: [], policyTexts: [])
            }
            let cols = try (columns[k] ?? []).map { r in
                TableInfo.ColumnInfo(
                    name: try r.decode("name"), type: try r.decode("type"), category: try r.decode("category"),
                    typeName: try r.decode("type_name"), baseTypeName: try r.decode("base_type"),
                    notNull: try r.decode("not_null"),
                    hasDefault: try r.decode("has_default"), identity: try r.decode("identity"),
                    generated: try r.decode("generated"), enumLabel: try r.decode("enum_label"),
                    enumLabels: try r.decode("enum_labels"), references: try r.decode("refs"),
                    userDefault: try r.decode("user_default"))
            }
            let keys = try (uniques[k] ?? []).compactMap { r -> [String]? in
                try r.decode("plain", as: Bool.self) ? try r.decode("cols", as: [String].self) : nil
            }
            var t = TableInfo(
                schema: schema, name: name, exists: true, rlsEnabled: try head.decode("rls"),
                serviceRoleCanInsert: try head.decode("service_insert"), columns: cols, uniqueKeys: keys,
                policyTexts: try (policies[k] ?? []).map { try $0.decode("expr") })
            t.updateChecks = try (policies[k] ?? []).compactMap { try $0.decode("update_check") as String? }
            for r in constraints[k] ?? [] {
                let cols: [String] = try r.decode("cols")
                if try r.decode("kind", as: String.self) == "c" {
                    t.checks[cols[0], default: []].append(try r.decode("expr"))
                } else {
                    t.foreignKeys.append(
                        TableInfo.ForeignKey(
                            name: try r.decode("name"), columns: cols, refSchema: try r.decode("ref_schema"),
                            refTable: try r.decode("ref_table"), refColumns: try r.decode("ref_cols")))
                }
            }
            return t
        }
        var out = try names.enumerated().map { try info($0.offset, $0.element.schema, $0.element.name) }
        // Declared tables are parents too (a message's channel may be declared itself).
        var parents = Dictionary(out.filter(\.exists).map { ($0.qualifiedName, $0) }) { a, _ in a }
        for (k, rs) in heads where k >= names.count {
            let p = try info(k, try rs[0].decode("schema"), try rs[0].decode("name"))
            parents[p.qualifiedName] = p
        }
        for i in out.indices where out[i].exists { out[i].parents = parents }
        // A helper such as is_admin() that reads the JWT counts as reading claims: add the bodies.
        let called = Set(out.flatMap { $0.policyTexts.flatMap { Catalog.functionNames(in: $0) } })
        if !called.isEmpty {
            let bodies = try conn.query(functionBodiesSQL, [Array(called)]).rows.map {
                (try $0.decode("name", as: String.self), try $0.decode("prosrc", as: String.self))
            }
            for i in out.indices {
                let mine = Set(out[i].policyTexts.flatMap { Catalog.functionNames(in: $0) })
                out[i].policyTexts += bodies.filter { mine.contains($0.0) }.map(\.1)
            }
        }
        return out
    }

    /// RLS-enabled tables in these schemas, as `schema.name` quoted where needed (the form an access file takes).
    static func rlsTables(_ conn: PostgresConnection, schemas: [String]) throws -> [String] {
        try conn.query(
            """
            select n.nspname::text as schema, c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1) order by 1, 2
            """, [schemas]
        ).rows.map { SQL.qualified(try $0.decode("schema"), try $0.decode("name")) }
    }

    /// Which of these schemas exist.
    static func existingSchemas(_ conn: PostgresConnection, _ names: [String]) throws -> Set<String> {
        Set(
            try conn.query("select nspname::text as n from pg_namespace where nspname = any($1)", [names]).rows.map {
                try $0.decode("n")
            })
    }

    static func authUserColumns(_ conn: PostgresConnection) throws -> Set<String> {
        Set(
            try conn.query(
                """
                select attname::text as n from pg_attribute where attrelid = to_regclass('auth.users') and attnum > 0 and not attisdropped
                """
            ).rows.map { try $0.decode("n") })
    }

    /// Bodies of the functions triggers on auth.users run (sign-up triggers copy metadata into app tables).
    static func signUpTriggerBodies(_ conn: PostgresConnection) throws -> [String] {
        try conn.query(
            """
            select p.prosrc from pg_trigger t join pg_proc p on p.oid = t.tgfoid
             where t.tgrelid = to_regclass('auth.users') and not t.tgisinternal
            """
        ).rows.map { try $0.decode("prosrc") }
    }

    /// GoTrue's role: whether it exists, and whether this session may SET ROLE to it (a member,
    /// or rlskit's harness login on its throwaway server, which the server module lets switch),
    /// with the login role's name for the note when it may not.
    static func authAdmin(_ conn: PostgresConnection) throws -> (exists: Bool, usable: Bool, login: String) {
        let r = try conn.query(
            """
            select exists (select 1 from pg_roles where rolname = 'supabase_auth_admin') as e,
                   session_user::text as login,
                   coalesce((select pg_has_role(session_user, 'supabase_auth_admin', 'MEMBER')
                              where exists (select 1 from pg_roles where rolname = 'supabase_auth_admin')), false)
                   or coalesce(session_user::text = any (string_to_array(current_setting('rlskit_sandbox.harness_logins', true), ','))
                       and 'supabase_auth_admin' = any (string_to_array(current_setting('rlskit_sandbox.harness_roles', true), ',')),
                       false) as u
            """
        ).rows[0]
        return (try r.decode("e"), try r.decode("u"), try r.decode("login"))
    }

    static func roleExists(_ conn: PostgresConnection, _ role: String) throws -> Bool {
        try conn.query("select exists (select 1 from pg_roles where rolname = $1) as e", [role]).rows[0].decode("e")
    }

    /// Functions that would make a real network call from inside a check (pgsql-http is
    /// synchronous; pg_net sends after commit, but a harness should not rely on that).
    /// rlskit's recording stand-ins are not counted.
    static func networkFunctions(_ conn: PostgresConnection) throws -> [String] {
        try conn.query(
            """
            select distinct n.nspname || '.' || p.proname as f from pg_proc p join pg_namespace n on n.oid = p.pronamespace
             where (p.proname = 'http' and n.nspname not in ('pg_catalog', 'information_schema'))
                or (n.nspname = 'net' and p.proname like 'http\\_%')
            -- rlskit's stand-ins (throwaway server) record requests and never send them
            except
            select n.nspname || '.' || p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              join pg_depend d on d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'
              join pg_extension e on d.refclassid = 'pg_extension'::regclass and e.oid = d.refobjid
             where coalesce(obj_description(e.oid, 'pg_extension'), '') like 'rlskit stand-in:%'
             order by 1
            """
        ).rows.map { try $0.decode("f") }
    }
}

extension Catalog {
    /// The bodies of the functions named in `$1` (any schema, not built in), in creation order:
    /// what the helpers a policy calls read. Also `rlskit init`'s question.
    static let functionBodiesSQL = """
        select proname::text as name, prosrc from pg_proc
         where proname = any($1) and prolang <> (select oid from pg_language where lanname = 'internal')
         order by oid
        """

    static let call = try! NSRegularExpression(pattern: #"([A-Za-z_][A-Za-z0-9_]*)\s*\("#)

    /// Names of functions called in an expression, e.g. "is_admin" in `private.is_admin()`.
    static func functionNames(in text: String) -> [String] {
        let ns = text as NSString
        let builtins: Set<String> = [
            "select", "uid", "jwt", "role", "email", "current_setting", "coalesce", "nullif", "foldername",
            "filename", "extension", "any", "array", "exists", "lower", "upper", "in", "and", "or", "not",
        ]
        return call.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
            ns.substring(with: $0.range(at: 1))
        }
        .filter { !builtins.contains($0.lowercased()) }
    }
}
