import Foundation

/// What rlskit did to show that a finding is real: the request as the Data API would receive
/// it, who sent it, the SQL run and the rows it read or wrote; or why it could not.
public struct Proof: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        /// The exploit ran (rolled back) and read or wrote rows it must not.
        case proven
        /// It was tried, or could not be, and the reason says why.
        case notProven = "not_proven"
        /// A database rlskit may not write to: nothing was tried.
        case readOnly = "read_only"
    }

    public var outcome: Outcome
    /// Who sent it: "anon", "a stranger (a signed-in user who owns nothing)".
    public var actor: String = ""
    /// The database role the API switched to: anon, authenticated.
    public var role: String = ""
    /// The request as PostgREST receives it: `GET /rest/v1/notes?select=*`.
    public var request: String = ""
    /// The SQL run as that caller.
    public var sql: String = ""
    /// "read", "wrote", "handed over".
    public var effect: String = ""
    /// Rows read or written.
    public var rows: Int = 0
    /// The first rows' keys (primary key values): `id=1`.
    public var keys: [String] = []
    /// Why it is not proven.
    public var reason: String = ""
    /// The level the finding had before an unproven finding was lowered.
    public var demotedFrom: FindingLevel?

    public init(outcome: Outcome) { self.outcome = outcome }

    static func notProven(_ reason: String) -> Proof {
        var p = Proof(outcome: .notProven)
        p.reason = reason
        return p
    }

    static let readOnly = Proof(outcome: .readOnly)

    /// How many keys a proof keeps.
    static let keyLimit = 5

    /// One line for text reports: `proof: as anon (role anon), GET /rest/v1/notes?select=* read 2 rows (id=1, id=2)`.
    public var line: String {
        switch outcome {
        case .readOnly: return "not proven (read-only)"
        case .notProven:
            return "not proven: \(reason)"
                + (demotedFrom.map { " (\($0.label) lowered to WARN until proven)" } ?? "")
        case .proven:
            var s = "proof: as \(actor)"
            if !role.isEmpty && role != actor { s += " (role \(role))" }
            // A proof by a request the server would send has no rows to count.
            s += ", \(request) \(effect)" + (rows > 0 ? " \(rows) row\(rows == 1 ? "" : "s")" : "")
            if !keys.isEmpty { s += " (\(keys.joined(separator: ", "))\(rows > keys.count ? ", …" : ""))" }
            return s + "; rolled back"
        }
    }

    var json: JSON {
        var pairs: [(String, JSON)] = [("outcome", .string(outcome.rawValue))]
        if outcome == .proven {
            pairs += [
                ("actor", .string(actor)), ("role", .string(role)), ("request", .string(request)),
                ("sql", .string(sql)),
                ("effect", .string(effect)), ("rows", .int(rows)), ("keys", .array(keys.map(JSON.string))),
            ]
        }
        if !reason.isEmpty { pairs.append(("reason", .string(reason))) }
        if let demotedFrom { pairs.append(("demoted_from", .string(demotedFrom.rawValue))) }
        return .object(pairs)
    }

    /// Flat properties for SARIF results.
    var properties: [String: String] {
        var m = ["proof": line, "proof_outcome": outcome.rawValue]
        if outcome == .proven {
            m["proof_actor"] = actor
            m["proof_role"] = role
            m["proof_request"] = request
            m["proof_sql"] = sql
            m["proof_rows"] = String(rows)
            m["proof_keys"] = keys.joined(separator: "; ")
        }
        if let demotedFrom { m["proof_demoted_from"] = demotedFrom.rawValue }
        return m
    }
}

extension Array where Element == Finding {
    /// ERROR findings get `not proven (read-only)`: audit on a live database writes nothing.
    public func markedReadOnly() -> [Finding] {
        map { f in
            var f = f
            if f.level == .error && f.proof == nil { f.proof = .readOnly }
            return f
        }
    }
}

extension AuditResult {
    /// The result with its ERRORs marked `not proven (read-only)`.
    public func markedReadOnly() -> AuditResult {
        var r = self
        r.findings = findings.markedReadOnly()
        return r
    }
}
