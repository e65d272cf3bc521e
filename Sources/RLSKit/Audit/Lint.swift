import Foundation

/// How serious a finding is. Ordered: info < warn < error.
public enum Level: String, Sendable, Codable, Comparable, CaseIterable {
    case info, warn, error

    public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    var rank: Int { switch self { case .info: 0; case .warn: 1; case .error: 2 } }
    /// Upper-case label used in text output and docs.
    public var label: String { rawValue.uppercased() }
}

public enum LintCategory: String, Sendable, Codable {
    case security = "SECURITY"
    case performance = "PERFORMANCE"
}

/// What a lint inspects and how.
public enum LintLogic: Sendable {
    /// One catalog query returning the standard columns `schema, name, kind, member, detail,
    /// metadata` (jsonb of text values). `$1` is the exposed schemas as `text[]`.
    case sql(String)
    /// Swift over rows fetched once for all lints (policy expressions are easier to read in Swift).
    case swift(needs: Set<CatalogDataset>, check: @Sendable (AuditCatalog) -> [FindingDraft])
}

/// One audit rule, with its documentation and its own examples (run by the test suite:
/// every triggering example must produce a finding of this lint, no non-triggering one may).
public struct Lint: Sendable {
    /// Stable number: splinter's for the lints it has, 1xxx for rlskit's own.
    public let id: String
    /// Stable snake_case name; used in baselines, SARIF rule ids and `--explain`.
    public let name: String
    public let title: String
    public let level: Level
    public let categories: [LintCategory]
    /// One paragraph: what is wrong and why it matters.
    public let description: String
    public let remediation: String
    public let logic: LintLogic
    /// SQL run on a fresh database with the Supabase stand-in installed.
    public let triggering: [String]
    public let nonTriggering: [String]

    public init(id: String, name: String, title: String, level: Level, categories: [LintCategory],
                description: String, remediation: String, logic: LintLogic,
                triggering: [String], nonTriggering: [String]) {
        self.id = id
        self.name = name
        self.title = title
        self.level = level
        self.categories = categories
        self.description = description
        self.remediation = remediation
        self.logic = logic
        self.triggering = triggering
        self.nonTriggering = nonTriggering
    }

    /// The lint's documentation as `rlskit audit --explain` prints it.
    public var explanation: String {
        var out = "\(name) (\(id)) — \(title)\nlevel: \(level.label)   categories: \(categories.map(\.rawValue).joined(separator: ", "))\n\n"
        out += description + "\n\nremediation: " + remediation + "\n"
        if case .sql(let sql) = logic {
            out += "\nquery ($1 = exposed schemas, text[]):\n" + sql.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
        }
        for (title, examples) in [("triggers on", triggering), ("does not trigger on", nonTriggering)] {
            for (i, ex) in examples.enumerated() {
                out += "\nexample \(i + 1) \(title):\n" + ex.trimmingCharacters(in: .whitespacesAndNewlines)
                    .split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") + "\n"
            }
        }
        return out
    }
}

/// Schemas that belong to the platform or to PostgreSQL itself: lints about the user's own
/// objects skip them (storage policies are audited by dedicated lints).
public enum SchemaLists {
    public static let system = ["pg_catalog", "information_schema", "pg_toast"]
    public static let managed = ["auth", "storage", "extensions", "graphql", "graphql_public", "realtime", "_realtime",
                                 "supabase_functions", "supabase_migrations", "vault", "pgsodium", "pgsodium_masks",
                                 "pgbouncer", "net", "cron", "pgtle", "_analytics", "pgmq", "topology", "tiger"]
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

/// SQL snippets shared by lint queries.
enum SQLParts {
    /// SQL: the identifier `expr` as text for sentences that name objects, as `SQL.display`
    /// writes it: quoted by the server, `\\` and line breaks escaped.
    static func ident(_ expr: String) -> String {
        "replace(replace(replace(pg_catalog.quote_ident(\(expr)), E'\\\\', E'\\\\\\\\'), chr(10), E'\\\\n'), chr(13), E'\\\\r')"
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
    static let securityInvoker = "exists (select 1 from unnest(coalesce(%@.reloptions, '{}')) o where o ~* '^security_invoker=(true|on|yes|1|t|y)$')"
    static func isSecurityInvoker(_ alias: String) -> String { securityInvoker.replacingOccurrences(of: "%@", with: alias) }
}
