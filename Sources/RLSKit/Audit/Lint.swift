import Foundation

/// How serious a finding is. Ordered: info < warn < error.
public enum FindingLevel: String, Sendable, Codable, Comparable, CaseIterable {
    case info, warn, error

    public static func < (a: FindingLevel, b: FindingLevel) -> Bool { a.rank < b.rank }
    var rank: Int {
        switch self {
        case .info: 0
        case .warn: 1
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
