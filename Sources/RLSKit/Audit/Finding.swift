import Foundation

/// The object a finding is about.
public struct AuditObject: Hashable, Sendable, Codable {
    public var schema: String
    /// Table, view, function signature, bucket id, extension name.
    public var name: String
    /// "table", "view", "materialized view", "foreign table", "function", "policy", "bucket",
    /// "extension", "foreign key", "column", "comment".
    public var kind: String
    /// The part inside `name`: policy name, constraint name, column name; nil when none.
    public var member: String?

    public init(schema: String, name: String, kind: String, member: String? = nil) {
        self.schema = schema
        self.name = name
        self.kind = kind
        self.member = member
    }

    /// `schema.name` (plus `.member`), quoted where needed: SARIF's fullyQualifiedName.
    public var qualifiedName: String {
        switch kind {
        // A comment's name is already pg_identify_object's qualified, quoted identity.
        case "comment": return name
        case "bucket", "extension": return member.map { base + "." + $0 } ?? base
        default: return member.map { base + "." + AuditNames.ident($0) } ?? base
        }
    }

    /// `schema.name` with both parts quoted where needed (a function keeps its argument types).
    var base: String {
        switch kind {
        case "bucket", "extension": return schema.isEmpty ? name : schema + "." + name
        case "function": return AuditNames.function(schema, name)
        case "comment": return name
        default: return schema.isEmpty ? AuditNames.ident(name) : AuditNames.qualified(schema, name)
        }
    }

    /// How a sentence names it: `policy "x" on storage.objects`, `function public.f(text)`,
    /// `comment on table public.posts`; names that need quotes are quoted.
    public var display: String {
        switch kind {
        case "policy": return "policy \(AuditNames.policy(member ?? "")) on \(base)"
        case "foreign key": return "foreign key \(AuditNames.ident(member ?? "")) on \(base)"
        case "column": return "column \(base).\(AuditNames.ident(member ?? ""))"
        case "comment": return "comment on \(member ?? "object") \(name)"
        default: return member.map { "\(kind) \(base) (\($0))" } ?? "\(kind) \(base)"
        }
    }
}

/// Names in findings' sentences, quoted as the lock file quotes them.
enum AuditNames {
    static func ident(_ name: String) -> String { SQL.display(name) }
    static func qualified(_ schema: String, _ name: String) -> String { ident(schema) + "." + ident(name) }
    /// Policy names are always in double quotes (they are usually sentences).
    static func policy(_ name: String) -> String { SQL.display(name, always: true) }
    /// `schema.name(argument types)` from a schema and `name(argument types)`.
    static func function(_ schema: String, _ signature: String) -> String {
        guard let paren = signature.firstIndex(of: "(") else { return qualified(schema, signature) }
        return qualified(schema, String(signature[..<paren])) + signature[paren...]
    }
}

/// What a lint reports before the runner adds the lint's own fields.
struct FindingDraft: Sendable {
    var object: AuditObject
    /// One sentence that names the object.
    var detail: String
    var metadata: [String: String]
    /// Extra identity for the fingerprint when one object can have several findings of one lint.
    var key: String?
    /// This finding's own fix, when the lint's remediation cannot say it well enough.
    var fix: String?
    /// Lower than the lint's level when this case is less serious (the detail says why).
    var level: FindingLevel?

    init(
        object: AuditObject, detail: String, metadata: [String: String] = [:], key: String? = nil, fix: String? = nil,
        level: FindingLevel? = nil
    ) {
        self.object = object
        self.detail = detail
        self.metadata = metadata
        self.key = key
        self.fix = fix
        self.level = level
    }
}

/// One problem found in the catalog. The same shape for every lint.
public struct Finding: Sendable, Codable, Equatable {
    public var lint: String
    public var lintId: String
    public var title: String
    public var level: FindingLevel
    public var categories: [LintCategory]
    public var object: AuditObject
    public var detail: String
    public var remediation: String
    public var metadata: [String: String]
    /// Stable across runs and wording changes: derived from the lint name and the object's
    /// identity only. Baselines store it.
    public var fingerprint: String
    /// The exploit rlskit ran for this finding, or why it could not prove it (nil: not tried).
    public var proof: Proof?

    init(lint: Lint, draft: FindingDraft) {
        self.lint = lint.name
        lintId = lint.id
        title = lint.title
        level = draft.level ?? lint.level
        categories = lint.categories
        object = draft.object
        detail = draft.detail
        remediation = draft.fix ?? lint.remediation(for: draft.object)
        metadata = draft.metadata
        fingerprint = Self.fingerprint(lint: lint.name, object: draft.object, key: draft.key)
    }

    public static func fingerprint(lint: String, object: AuditObject, key: String?) -> String {
        let parts = [lint, object.kind, object.schema, object.name, object.member ?? "", key ?? ""]
        return String(SHA256.hex(Array(parts.joined(separator: "\u{1F}").utf8)).prefix(16))
    }
}

extension Array where Element == Finding {
    /// Most severe first, then by lint and object: the order every report uses.
    public func sortedForReport() -> [Finding] {
        let keys = map { (-$0.level.rank, $0.lint, $0.object.qualifiedName, $0.fingerprint) }
        return indices.sorted { keys[$0] < keys[$1] }.map { self[$0] }
    }
}
