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

    /// The grid's columns, in this order, each shown where the suite has a check for it: the
    /// verb after the actor's name decides it ("G1 member promotes self to owner": promote).
    static let tableColumns = [
        "select", "insert", "upsert", "update", "hand-over", "move", "delete", "join", "add", "remove", "leave",
        "promote", "change-role",
    ]
    static let bucketColumns = ["list", "upload", "overwrite", "move", "delete"]
    static let verbs: [String: String] = [
        "reads": "select", "inserts": "insert", "creates": "insert", "upserts": "upsert", "updates": "update",
        "changes": "update", "hands": "hand-over", "moves": "move", "deletes": "delete", "joins": "join",
        "adds": "add", "removes": "remove", "leaves": "leave", "promotes": "promote", "lists": "list",
        "uploads": "upload", "overwrites": "overwrite",
    ]

    /// Actor rows: owners (A, B), group actors, roles with their forgers and the forged-claims
    /// user, anon, service_role; within a rank, first seen first.
    static func orderActors(_ actors: [String]) -> [String] {
        func rank(_ a: String) -> Int {
            if a == "A" || a == "B" { return 0 }
            if a.hasPrefix("G1 ") || a.hasPrefix("G2 ") || a.hasPrefix("outsider") || a.hasPrefix("forged G") {
                return 1
            }
            if a == "anon" { return 3 }
            if a == "service_role" { return 4 }
            return 2
        }
        // A forger sits right after its holder ("admin", "forged admin").
        func base(_ a: String) -> String {
            let name = a.hasPrefix("forged ") ? a.dropFirst(7) : Substring(a)
            return String(name.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
        }
        let seen = Dictionary(actors.enumerated().map { (base($0.element), $0.offset) }, uniquingKeysWith: min)
        return actors.sorted {
            (rank($0), seen[base($0)]!, $0.hasPrefix("forged ") ? 1 : 0)
                < (rank($1), seen[base($1)]!, $1.hasPrefix("forged ") ? 1 : 0)
        }
    }

    /// The API role a matrix check ran as, as the harness recorded it; nil for anything else
    /// (the RLS probe, scenario steps, pgTAP), whose cells list every policy on the command.
    static func role(_ o: TestOutcome) -> String? {
        guard let r = o.role, ["anon", "authenticated", "service_role"].contains(r) else { return nil }
        return r
    }

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
    /// The name starts with the actor's name: the whole label ("outsider sending G1's key") or
    /// its first words ("M" of "M (user_metadata {…})").
    static func cell(_ o: TestOutcome) -> (actor: String, column: String, object: String)? {
        guard let actor = o.actor else { return nil }
        let words = actor.split(separator: " ")
        for n in stride(from: words.count, through: 1, by: -1) {
            let name = words.prefix(n).joined(separator: " ")
            guard o.name.hasPrefix(name + " ") else { continue }
            let rest = o.name.dropFirst(name.count + 1)
            let verb = String(rest.prefix { $0 != " " })
            guard var column = verbs[verb] else { return nil }
            let object = String(rest.dropFirst(verb.count + 1))
            if verb == "changes", object.contains("'s role") { column = "change-role" }
            return (actor, column, object)
        }
        return nil
    }
}
