import Foundation
import Postgres

/// One self-contained HTML file (`--html FILE`): per table and bucket a grid of actors ×
/// operations, each cell a check that opens its SQL, expected vs got, the policies on that
/// command and the declaring file:line; then other checks, audit findings and run facts.
public struct HTMLReport: Sendable {
    public struct Policy: Sendable {
        public var table: String
        public var name: String
        /// SELECT, INSERT, UPDATE, DELETE or ALL.
        public var command: String
        public var roles: String
        public var using: String?
        public var check: String?
    }

    public var command: String
    public var verdict: String
    public var facts: [(String, String)]
    public var tests: TestReport
    public var audit: AuditReport?
    public var policies: [Policy]
    /// RLS tables nobody tested (no tests at all).
    public var untested: [String]

    public init(
        command: String, verdict: String, facts: [(String, String)], tests: TestReport, audit: AuditReport?,
        policies: [Policy] = [], untested: [String] = []
    ) {
        self.command = command
        self.verdict = verdict
        self.facts = facts
        self.tests = tests
        self.audit = audit
        self.policies = policies
        self.untested = untested
    }

    /// Every row level security policy, storage's included.
    public static func policies(_ conn: PostgresConnection) throws -> [Policy] {
        try conn.query(
            """
            select schemaname::text as s, tablename::text as t, policyname::text as p, cmd::text as c,
                   array_to_string(roles, ', ') as r, qual, with_check from pg_policies order by 1, 2, 3
            """
        ).rows.map {
            Policy(
                table: SQL.qualified(try $0.decode("s"), try $0.decode("t")), name: try $0.decode("p"),
                command: try $0.decode("c"), roles: try $0.decode("r"), using: try $0.decode("qual"),
                check: try $0.decode("with_check"))
        }
    }

    /// The grid's columns: the verb of a matrix check's name decides it.
    static let tableColumns = ["select", "insert", "update", "hand-over", "delete"]
    static let bucketColumns = ["list", "upload", "overwrite", "move", "delete"]
    static let verbs: [String: String] = [
        "reads": "select", "inserts": "insert", "updates": "update", "hands": "hand-over", "deletes": "delete",
        "lists": "list", "uploads": "upload", "overwrites": "overwrite", "moves": "move",
    ]

    /// What a cell says: as intended (allowed or denied), wrong (a leak or a lockout), an error, not covered.
    enum Verdict: String {
        case allowed, denied, leak, lockout, error, skipped

        init(_ o: TestOutcome) {
            switch o.status {
            case .passed: self = o.intendedAllowed == false ? .denied : .allowed
            case .failed: self = o.intendedAllowed == true ? .lockout : o.intendedAllowed == false ? .leak : .error
            case .error: self = .error
            case .skipped, .todo: self = .skipped
            }
        }

        var words: String {
            switch self {
            case .allowed: "allowed as intended"
            case .denied: "denied as intended"
            case .leak: "LEAK: allowed, should be denied"
            case .lockout: "LOCKOUT: denied, should be allowed"
            case .error: "error"
            case .skipped: "not covered"
            }
        }
        var short: String {
            switch self {
            case .allowed: "✓ allowed"
            case .denied: "✓ denied"
            case .leak: "✗ leak"
            case .lockout: "✗ lockout"
            case .error: "✗ error"
            case .skipped: "– not covered"
            }
        }
    }

    /// A matrix check's place in its grid, nil for anything else (scenarios, pgTAP, the RLS probe).
    static func cell(_ o: TestOutcome) -> (actor: String, column: String, object: String)? {
        // A label may say more than the name a check starts with: "M (user_metadata {…})".
        guard let actor = o.actor, let short = actor.split(separator: " ").first, o.name.hasPrefix(short + " ")
        else { return nil }
        let rest = o.name.dropFirst(short.count + 1)
        let verb = rest.prefix { $0 != " " }
        guard let column = verbs[String(verb)] else { return nil }
        return (actor, column, String(rest.dropFirst(verb.count + 1)))
    }
}
