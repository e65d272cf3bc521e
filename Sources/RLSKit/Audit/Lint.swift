import Foundation

/// How serious a finding is. Ordered: info < warn < error.
public enum FindingLevel: String, Sendable, Codable, Comparable, CaseIterable {
    case info, warn, error

    public static func < (a: FindingLevel, b: FindingLevel) -> Bool { a.rank < b.rank }
    var rank: Int {
        switch self {
        case .info: 0;
        case .warn: 1;
        case .error: 2
        }
    }
    /// Upper-case label used in text output and docs.
    public var label: String { rawValue.uppercased() }
}

public enum LintCategory: String, Sendable, Codable {
    case security = "SECURITY"
    case performance = "PERFORMANCE"
}

/// What a lint inspects and how.
enum LintLogic: Sendable {
    /// One catalog query returning the standard columns `schema, name, kind, member, detail,
    /// metadata` (jsonb of text values). `$1` is the exposed schemas as `text[]`.
    case sql(String)
    /// Swift over rows fetched once for all lints (policy expressions are easier to read in Swift).
    case swift(needs: Set<CatalogDataset>, check: @Sendable (AuditCatalog) -> [FindingDraft])
}

/// One audit rule, with its documentation and its own examples (run by the test suite, one
/// test per lint: every triggering example must report exactly its `reports` objects, no
/// non-triggering one may report anything).
public struct Lint: Sendable {
    /// SQL that sets up a case, and for a triggering example the objects the lint must report
    /// (as `AuditObject.display` names them: `table public.notes`).
    public struct Example: Sendable, ExpressibleByStringLiteral {
        public let sql: String
        public let reports: [String]
        public init(_ sql: String, reports: String...) {
            self.sql = sql
            self.reports = reports
        }
        public init(stringLiteral sql: String) { self.init(sql) }
    }

    /// Stable number: splinter's for the lints it has, 1xxx for rlskit's own.
    public let id: String
    /// Stable snake_case name; used in baselines, SARIF rule ids and `--explain`.
    public let name: String
    public let title: String
    public let level: FindingLevel
    public let categories: [LintCategory]
    /// One paragraph: what is wrong and why it matters.
    public let description: String
    public let remediation: String
    let logic: LintLogic
    /// Run on a fresh database with the Supabase stand-in installed.
    public let triggering: [Example]
    public let nonTriggering: [Example]

    init(
        id: String, name: String, title: String, level: FindingLevel, categories: [LintCategory],
        description: String, remediation: String, logic: LintLogic,
        triggering: [Example], nonTriggering: [Example]
    ) {
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

    /// The remediation for one finding: the placeholders of the documented text (`<table>`,
    /// `<view>`, `<function>`, `<extension>`, `<column>`) replaced by the object's real names.
    public func remediation(for object: AuditObject) -> String {
        // Most remediations name no object; thousands of findings must not pay for replacing.
        guard remediation.utf8.contains(UInt8(ascii: "<")) else { return remediation }
        var out = ""
        var rest = Substring(remediation)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            out += rest[..<open]
            switch rest[rest.index(after: open)..<close] {
            case "table", "view", "function": out += object.base
            case "extension": out += AuditNames.ident(object.name)
            case "column" where object.member != nil: out += AuditNames.ident(object.member!)
            default: out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The lint's page in the repository: `docs/lints/<id>_<name>.md`.
    public var docsPath: String { "docs/lints/\(id)_\(name).md" }
    /// Where the page is published (SARIF `helpUri`, `--explain`).
    public var docsURL: String { Self.repositoryURL + "/blob/main/" + docsPath }
    public static let repositoryURL = "https://github.com/rlskit/rlskit"

    /// The lint's documentation as `rlskit audit --explain` prints it.
    public var explanation: String {
        var out =
            "\(name) (\(id)) — \(title)\nlevel: \(level.label)   categories: \(categories.map(\.rawValue).joined(separator: ", "))\n\n"
        out += description + "\n\nremediation: " + remediation + "\n"
        if case .sql(let sql) = logic {
            out +=
                "\nquery ($1 = exposed schemas, text[]):\n" + sql.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
        }
        for (title, examples) in [("triggers on", triggering), ("does not trigger on", nonTriggering)] {
            for (i, ex) in examples.enumerated() {
                out +=
                    "\nexample \(i + 1) \(title):\n"
                    + ex.sql.trimmingCharacters(in: .whitespacesAndNewlines)
                    .split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(
                        separator: "\n") + "\n"
                if !ex.reports.isEmpty { out += "    -- reports: " + ex.reports.joined(separator: "; ") + "\n" }
            }
        }
        return out + "\ndocs: \(docsURL)\n"
    }

    /// The lint's documentation page (Markdown), generated from its own text and examples;
    /// `docs/lints/` holds these and a test keeps them current.
    public var documentationPage: String {
        var out = "# \(id) \(name)\n\n**\(title)**\n\n"
        out += "Level: \(level.label) · Categories: \(categories.map(\.rawValue).joined(separator: ", "))\n\n"
        out += "## Why it matters\n\n\(description)\n\n## How to fix it\n\n\(remediation)\n\n"
        for (heading, examples) in [("Reported", triggering), ("Not reported", nonTriggering)] {
            out += "## \(heading)\n\n"
            for ex in examples {
                out += "```sql\n" + ex.sql.trimmingCharacters(in: .whitespacesAndNewlines) + "\n```\n"
                if !ex.reports.isEmpty {
                    out += "\nreports: " + ex.reports.map { "`\($0)`" }.joined(separator: ", ") + "\n"
                }
                out += "\n"
            }
        }
        if case .sql(let sql) = logic {
            out +=
                "## Query\n\n`$1` is the exposed schemas (`text[]`).\n\n```sql\n"
                + sql.trimmingCharacters(in: .whitespacesAndNewlines) + "\n```\n\n"
        }
        out +=
            "Generated from `Sources/RLSKit/Audit/Lints/` by the test suite; `rlskit audit --explain \(name)` prints the same as text.\n"
        return out
    }
}

/// Schemas that belong to the platform or to PostgreSQL itself: lints about the user's own
/// objects skip them (storage policies are audited by dedicated lints).
enum SchemaLists {
    public static let system = ["pg_catalog", "information_schema", "pg_toast"]
    public static let managed = [
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

/// SQL snippets shared by lint queries.
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
    static let securityInvoker =
        "exists (select 1 from unnest(coalesce(%@.reloptions, '{}')) o where o ~* '^security_invoker=(true|on|yes|1|t|y)$')"
    static func isSecurityInvoker(_ alias: String) -> String {
        securityInvoker.replacingOccurrences(of: "%@", with: alias)
    }
}
