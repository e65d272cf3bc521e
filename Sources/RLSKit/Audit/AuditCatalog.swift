import Foundation
import Postgres

/// Catalog rows fetched once and shared by the Swift lints.
enum CatalogDataset: String, Sendable, Hashable, CaseIterable {
    case policies, buckets, indexColumns, secretCandidates, functions, selfComparedColumns, policyHelpers,
        insertTargets

    /// Read after the pipeline, from what the policies show (see `AuditCatalog.loadSelfComparedColumns`,
    /// `AuditCatalog.loadPolicyHelpers`, `AuditCatalog.loadInsertTargets`).
    var followsPolicies: Bool { [.selfComparedColumns, .policyHelpers, .insertTargets].contains(self) }

    /// `$1` is the exposed schemas (text[]). Every query must be cheap on 10,000 tables.
    var sql: String {
        switch self {
        case .policies:
            return Catalog.auditPoliciesSQL
        case .functions:
            return Self.functionsSQL
        case .selfComparedColumns:
            return Catalog.namedTableColumnsSQL
        case .policyHelpers:
            return Self.policyHelpersSQL
        case .insertTargets:
            return Self.insertTargetsSQL
        case .buckets:
            // The select list only: `AuditCatalog.loadBuckets` reads it through `PlatformTable`.
            return "id, name, coalesce(public, false) as public"
        case .indexColumns:
            return """
                select n.nspname as schema, c.relname as table_name, a.attname as column_name
                from pg_catalog.pg_index i
                join pg_catalog.pg_class c on c.oid = i.indrelid
                join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
                where n.nspname = any($1::text[]) or n.nspname = any(\(Catalog.reachedSchemasSQL))
                """
        case .secretCandidates:
            // A cheap regex pre-filter on the server; Swift decides what is a secret.
            let pattern =
                "'eyJ[A-Za-z0-9_-]{8,}\\.eyJ|sb_secret_|[A-Za-z][A-Za-z0-9+.-]*://[^/:@[:space:]]+:[^/@[:space:]]+@'"
            return """
                select 'function' as kind, n.nspname as schema,
                       p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')' as name, null::text as member,
                       'body' as place, p.prosrc as text
                from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
                where \(SchemaLists.notSystem("n")) and p.prosrc ~ \(pattern)
                  and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
                union all
                select v.kind, v.schema, v.name, null, 'definition', d.definition
                from (
                  -- OFFSET 0 keeps the planner from deparsing (and opening) system views first.
                  select case c.relkind when 'm' then 'materialized view' else 'view' end as kind, n.nspname as schema,
                         c.relname as name, c.oid
                  from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                  where c.relkind in ('v', 'm') and \(SchemaLists.notSystem("n")) and \(SQLParts.notExtensionMember("c"))
                  offset 0
                ) v cross join lateral (select pg_catalog.pg_get_viewdef(v.oid) as definition) d
                where d.definition ~ \(pattern)
                union all
                select 'column', n.nspname, c.relname, a.attname, 'default', pg_catalog.pg_get_expr(d.adbin, d.adrelid)
                from pg_catalog.pg_attrdef d
                join pg_catalog.pg_class c on c.oid = d.adrelid
                join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                join pg_catalog.pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
                where \(SchemaLists.notSystem("n")) and \(SQLParts.notExtensionMember("c"))
                  -- Deparsing opens the table: only defaults with a string constant can hold a secret.
                  and case when d.adbin::text ~ ':consttype (25|1043|705|19|1042) ' and n.nspname <> ''
                           then pg_catalog.pg_get_expr(d.adbin, d.adrelid) end ~ \(pattern)
                union all
                -- Database webhooks pass their headers (often a service key) as trigger arguments.
                select 'trigger', n.nspname, c.relname, t.tgname, 'arguments', a.args
                from pg_catalog.pg_trigger t
                join pg_catalog.pg_class c on c.oid = t.tgrelid
                join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                cross join lateral (select pg_catalog.encode(t.tgargs, 'escape') as args) a
                where not t.tgisinternal and t.tgnargs > 0 and \(SchemaLists.notSystem("n")) and a.args ~ \(pattern)
                union all
                select 'comment', coalesce(o.schema, ''), o.identity, o.type, 'comment', ds.description
                from pg_catalog.pg_description ds
                cross join lateral pg_catalog.pg_identify_object(ds.classoid, ds.objoid, ds.objsubid) o
                where ds.objoid >= 16384 and ds.description ~ \(pattern)
                  and coalesce(o.schema, '') not in (\(SchemaLists.sqlList(SchemaLists.system)))
                  and not exists (select 1 from pg_catalog.pg_depend dep where dep.classid = ds.classoid
                                  and dep.objid = ds.objoid and dep.deptype = 'e')
                """
        }
    }

    /// Read after the pipeline, on its own (see `PlatformTable`): storage.buckets is the project's to replace.
    var readsPlatformTable: Bool { self == .buckets }
}

/// One row of pg_policy, deparsed. A class: the lints pass tens of thousands around.
final class PolicyRow: Sendable {
    let schema: String
    let table: String
    let name: String
    /// "SELECT", "INSERT", "UPDATE", "DELETE" or "ALL".
    let command: String
    let permissive: Bool
    let tableRLS: Bool
    /// Role names; "public" for PUBLIC.
    let roles: [String]
    let using: String?
    let withCheck: String?
    /// Parsed once when loaded; shared by all lints.
    let usingExpr: PolicyExpression?
    let checkExpr: PolicyExpression?

    convenience init(
        schema: String, table: String, name: String, command: String, permissive: Bool, tableRLS: Bool,
        roles: [String], using: String?, withCheck: String?
    ) {
        var cache: [String: PolicyExpression] = [:]
        self.init(
            schema: schema, table: table, name: name, command: command, permissive: permissive, tableRLS: tableRLS,
            roles: roles, using: using, withCheck: withCheck, cache: &cache)
    }

    /// Policies are often written from one template: identical expressions are parsed once.
    init(
        schema: String, table: String, name: String, command: String, permissive: Bool, tableRLS: Bool,
        roles: [String], using: String?, withCheck: String?, cache: inout [String: PolicyExpression]
    ) {
        self.schema = schema
        self.table = table
        self.name = name
        self.command = command
        self.permissive = permissive
        self.tableRLS = tableRLS
        self.roles = roles
        self.using = using
        self.withCheck = withCheck
        func parsed(_ text: String) -> PolicyExpression {
            if let e = cache[text] { return e }
            let e = PolicyExpression(text)
            cache[text] = e
            return e
        }
        usingExpr = using.map(parsed)
        checkExpr = withCheck.map(parsed)
    }

    var object: AuditObject { AuditObject(schema: schema, name: table, kind: "policy", member: name) }
    var isStorageObjects: Bool { schema == "storage" && table == "objects" }

    /// True when the policy can apply to an API caller (anon or authenticated).
    var appliesToAPICallers: Bool { roles.contains { ["public", "anon", "authenticated"].contains($0) } }
    var appliesToAnon: Bool { roles.contains { $0 == "public" || $0 == "anon" } }

    /// The expression new rows are checked against: WITH CHECK, else USING (Postgres'
    /// rule for UPDATE and ALL).
    var effectiveCheck: PolicyExpression? { checkExpr ?? (command == "INSERT" ? nil : usingExpr) }

    static func command(_ code: String) -> String {
        switch code {
        case "r": "SELECT"
        case "a": "INSERT"
        case "w": "UPDATE"
        case "d": "DELETE"
        default: "ALL"
        }
    }
}

struct BucketRow: Sendable {
    var id: String
    var name: String
    var isPublic: Bool
}

struct SecretCandidate: Sendable {
    var kind: String
    var schema: String
    var name: String
    var member: String?
    var place: String
    var text: String
}

/// Everything the Swift lints read.
struct AuditCatalog: Sendable {
    var exposedSchemas: [String]
    var policies: [PolicyRow] = []
    var buckets: [BucketRow] = []
    /// Platform tables rlskit did not read, because reading them could run the project's code.
    var unread: [PlatformTable.Unread] = []
    /// "schema.table" → columns that lead at least one index.
    var indexedLeadingColumns: [String: Set<String>] = [:]
    var secretCandidates: [SecretCandidate] = []
    var functions: [FunctionRow] = []
    /// "schema.table" → its columns, each with the table its single-column foreign key references.
    var columns: [String: [(name: String, references: String?)]] = [:]
    /// Lower-cased name → the pure helpers of that name the policies call.
    var helpers: [String: [PolicyHelper]] = [:]
    /// Each policy calling a pure helper → its expressions with the helpers inlined.
    var inlined: [ObjectIdentifier: [InlinedExpression]] = [:]
    /// "schema.table" → what inserting creates, for tables an INSERT policy `with check (true)` opens.
    var insertTargets: [String: InsertTarget] = [:]

    init(exposedSchemas: [String]) { self.exposedSchemas = exposedSchemas }

    static func policies(_ rows: [PostgresRow]) throws -> [PolicyRow] {
        var cache: [String: PolicyExpression] = [:]
        return try rows.map { r in
            PolicyRow(
                schema: try r.decode("schema"), table: try r.decode("table_name"), name: try r.decode("name"),
                command: PolicyRow.command(try r.decode("cmd")), permissive: try r.decode("permissive"),
                tableRLS: try r.decode("rls"), roles: try r.decode("roles"),
                using: try r.decode("qual"), withCheck: try r.decode("with_check"), cache: &cache)
        }
    }

    /// storage.buckets, when it can be read without running the project's code; else `unread` says why.
    mutating func loadBuckets(_ conn: PostgresConnection) throws {
        switch try PlatformTable.read(
            conn, "storage", "buckets", columns: ["id", "name", "public"], select: CatalogDataset.buckets.sql)
        {
        case .absent: buckets = []
        case .rows(let rows): try load(.buckets, rows)
        case .unread(let u): unread.append(u)
        }
    }

    mutating func load(_ dataset: CatalogDataset, _ rows: [PostgresRow]) throws {
        switch dataset {
        case .policies:
            policies = try Self.policies(rows)
        case .buckets:
            buckets = try rows.map {
                BucketRow(id: try $0.decode("id"), name: try $0.decode("name"), isPublic: try $0.decode("public"))
            }
        case .indexColumns:
            for r in rows {
                let key: String = try r.decode("schema") + "." + (try r.decode("table_name") as String)
                indexedLeadingColumns[key, default: []].insert(try r.decode("column_name"))
            }
        case .functions:
            functions = try rows.map { r in
                var via: [String: String] = [:]
                for role in ["anon", "authenticated"] { if let v: String = try r.decode(role) { via[role] = v } }
                return FunctionRow(
                    schema: try r.decode("schema"), name: try r.decode("name"), owner: try r.decode("owner"),
                    language: try r.decode("language"), body: try r.decode("body"), executableBy: via,
                    isHelper: try r.decode("helper"),
                    argumentNames: (try r.decode("argnames") as [String]).map { $0.lowercased() },
                    returnsBoolean: try r.decode("returns_bool"))
            }
        case .selfComparedColumns:
            for r in rows {
                let key: String = try r.decode("schema") + "." + (try r.decode("table_name") as String)
                columns[key, default: []].append((try r.decode("column_name"), try r.decode("refs")))
            }
        case .policyHelpers, .insertTargets:
            break  // read by `loadPolicyHelpers`, `loadInsertTargets`
        case .secretCandidates:
            secretCandidates = try rows.map { r in
                SecretCandidate(
                    kind: try r.decode(0), schema: try r.decode(1), name: try r.decode(2), member: try r.decode(3),
                    place: try r.decode(4), text: try r.decode(5))
            }
        }
    }
}
