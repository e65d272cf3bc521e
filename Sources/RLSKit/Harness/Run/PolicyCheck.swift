import Foundation
import Postgres

/// What a statement did, in the terms a policy author thinks in.
enum Observed: Sendable, Equatable, CustomStringConvertible {
    case rows([[String?]])
    case affected(Int)
    case ok
    case deniedByRLS(String)
    case deniedByPrivilege(String)
    /// A PL/pgSQL RAISE (a trigger or function refusing the change).
    case refused(sqlState: String, message: String)
    case error(sqlState: String, message: String)
    case notRun

    init(_ outcome: StatementOutcome) {
        switch outcome {
        case .skipped: self = .notRun
        case .failure(let e):
            let state = e.sqlState ?? "?????"
            if state == "42501", e.message.contains("row-level security") {
                self = .deniedByRLS(e.message)
            } else if state == "42501", e.message.hasPrefix("permission denied") {
                self = .deniedByPrivilege(e.message)
            } else if APIChecks.isRefusal(e) {
                self = .refused(sqlState: state, message: e.message)
            } else {
                self = .error(sqlState: state, message: e.message)
            }
        case .success(let r):
            let tag = r.commandTag.split(separator: " ").first.map(String.init) ?? ""
            if !r.columns.isEmpty {
                self = .rows(r.rows.map(\.values))
            } else if ["INSERT", "UPDATE", "DELETE", "MERGE"].contains(tag) {
                self = .affected(r.affectedRows ?? 0)
            } else {
                self = .ok
            }
        }
    }

    var isDenied: Bool {
        switch self {
        case .deniedByRLS, .deniedByPrivilege, .refused: true
        default: false
        }
    }

    /// Rows returned or affected; nil after an error.
    var count: Int? {
        switch self {
        case .rows(let r): r.count
        case .affected(let n): n
        case .ok: 0
        default: nil
        }
    }

    var description: String {
        switch self {
        case .rows(let r) where r.count == 1 && r[0].count == 1: "1 row: \(r[0][0] ?? "NULL")"
        case .rows(let r): r.count == 1 ? "1 row" : "\(r.count) rows"
        case .affected(let n): n == 1 ? "1 row affected" : "\(n) rows affected"
        case .ok: "success"
        case .deniedByRLS(let m): "denied by RLS (42501: \(m))"
        case .deniedByPrivilege(let m): "denied by privilege (42501: \(m))"
        case .refused(let s, let m): "refused by a RAISE in a trigger or function (\(s): \(m))"
        case .error(let s, let m): "error \(s): \(m)"
        case .notRun: "not run (an earlier statement of the check failed)"
        }
    }
}

/// What a check expects.
enum Expectation: Sendable, Equatable, CustomStringConvertible {
    /// Matrix: the row is visible (a count(*) of at least 1).
    case visible
    /// Matrix: the row is not visible: 0, or denied outright.
    case hidden
    /// Matrix: a write goes through and touches at least one row.
    case allowed
    /// Matrix: a write touches nothing: 0 rows, or denied by RLS or privilege.
    case blocked
    /// Scenarios.
    case succeeds
    case rowCount(Int)
    case affected(Int)
    case value(String?)
    case values([String?])
    case row([String?])
    case deniedByRLS
    case deniedByPrivilege
    case sqlState(String)
    /// A superuser check on the catalog: the query returns true.
    case isTrue
    /// A protected column: the count of rows holding the new value is 0, or the write was
    /// refused (denied, or raised by a trigger or a check constraint).
    case notStored

    var description: String {
        switch self {
        case .visible: "the row visible (a count of at least 1)"
        case .hidden: "the row not visible (a count of 0, or denied)"
        case .allowed: "the write goes through (at least 1 row)"
        case .blocked: "nothing written (0 rows, denied by RLS or privilege, or refused by a RAISE)"
        case .succeeds: "success"
        case .rowCount(let n): n == 1 ? "1 row" : "\(n) rows"
        case .affected(let n): n == 1 ? "1 row affected" : "\(n) rows affected"
        case .value(let v): "value \(v ?? "NULL")"
        case .values(let v): "values " + v.map { $0 ?? "NULL" }.joined(separator: " | ")
        case .row(let v): "row " + v.map { $0 ?? "NULL" }.joined(separator: " | ")
        case .deniedByRLS: "denied by RLS (42501 row-level security)"
        case .deniedByPrivilege: "denied by privilege (42501 permission denied)"
        case .sqlState(let s): "SQLSTATE \(s)"
        case .isTrue: "true"
        case .notStored: "the value not stored (refused, reset or denied)"
        }
    }

    /// What `o` means to this expectation: a visibility or protected-column check's one value
    /// is a count of rows, not a row of its own, so "1 row: 0" reads "not visible (a count of 0)".
    func describe(_ o: Observed) -> String {
        guard case .rows(let r) = o, r.count == 1, r[0].count == 1, let v = r[0][0] else { return o.description }
        switch self {
        case .visible, .hidden:
            guard let n = Int(v) else { return o.description }
            return n == 0 ? "the row not visible (a count of 0)" : "the row visible (a count of \(n))"
        case .notStored:
            guard let n = Int(v) else { return o.description }
            return n == 0
                ? "the value not stored (no row holds it)"
                : "the value stored (\(n == 1 ? "1 row holds" : "\(n) rows hold") it)"
        case .value: return "value \(v)"
        case .isTrue: return v == "t" ? "true" : v == "f" ? "false" : "value \(v)"
        default: return o.description
        }
    }

    /// Matrix intent: true when the access should go through, false when it should be denied.
    var intendsAllowed: Bool? {
        switch self {
        case .visible, .allowed: true
        case .hidden, .blocked, .deniedByRLS, .deniedByPrivilege, .notStored: false
        default: nil
        }
    }

    func accepts(_ o: Observed) -> Bool {
        switch self {
        case .visible:
            if case .rows(let r) = o, let v = r.first?.first ?? nil, let n = Int(v) { return n > 0 }
            return false
        case .hidden:
            if o.isDenied { return true }
            if case .rows(let r) = o, let v = r.first?.first ?? nil, let n = Int(v) { return n == 0 }
            return false
        case .allowed:
            if case .affected(let n) = o { return n > 0 }
            if case .rows(let r) = o { return !r.isEmpty }
            return false
        case .blocked:
            return o.isDenied || o.count == 0
        case .succeeds:
            return o.count != nil
        case .rowCount(let n):
            if case .rows(let r) = o { return r.count == n }
            return false
        case .affected(let n):
            if case .affected(let m) = o { return m == n }
            if case .rows(let r) = o { return r.count == n }  // … RETURNING
            return false
        case .value(let v):
            if case .rows(let r) = o { return r.count == 1 && r[0].count >= 1 && r[0][0] == v }
            return false
        case .values(let v):
            if case .rows(let r) = o { return r.map { $0.first ?? nil } == v }
            return false
        case .row(let v):
            if case .rows(let r) = o {
                return r.count == 1 && Array(r[0].prefix(v.count)) == v && r[0].count == v.count
            }
            return false
        case .deniedByRLS:
            if case .deniedByRLS = o { return true }
            return false
        case .deniedByPrivilege:
            if case .deniedByPrivilege = o { return true }
            return false
        case .sqlState(let s):
            switch o {
            case .error(let st, _), .refused(let st, _): return st == s
            case .deniedByRLS, .deniedByPrivilege: return s == "42501"
            default: return false
            }
        case .isTrue:
            if case .rows(let r) = o { return r.first?.first == "t" }
            return false
        case .notStored:
            if o.isDenied { return true }
            if case .error(let state, _) = o { return state == "P0001" || state == "23514" }
            if case .rows(let r) = o, let v = r.first?.first ?? nil { return v == "0" }
            return false
        }
    }
}

/// One check: statements run in order in one rolled-back group; the last one is judged.
struct PolicyCheck: Sendable {
    var suite: String
    var actor: String
    /// "select" | "insert" | "update" | "delete": for the coverage summary.
    var operation: String
    var name: String
    /// Setup statements (as the connecting role), then the impersonation, then the statement judged.
    var statements: [String]
    var expectations: [Expectation]
    var location: SourceLocation?
    /// Matrix checks: the row in question, so that a failure names the policies that decided it.
    var row: CheckRow? = nil
    /// The plain write this `… returning *` check repeats: judged only when that one passes.
    var readBackOf: String?

    var judgedSQL: String { statements.last ?? "" }
}
