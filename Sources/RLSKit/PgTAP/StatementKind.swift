/// How the runner treats a top-level statement of a pgTAP file. Files run inside a
/// transaction of ours, so their own transaction control is mapped onto it and nothing a
/// file does can commit.
enum StatementKind: Equatable {
    /// BEGIN / START TRANSACTION: we are already in one; work before it counts as committed.
    case begin
    /// COMMIT / END: kept only until the end of the file, which always rolls back.
    case commit
    /// ROLLBACK / ABORT: back to the last BEGIN or COMMIT (or the file's start).
    case rollback
    /// PREPARE TRANSACTION, COMMIT/ROLLBACK PREPARED: would outlive the run.
    case twoPhase
    /// CREATE EXTENSION pgtap, when we created it for this file already.
    case createPgTAP
    /// Installing basejump's helpers (extension or dbdev): ours are built in.
    case installHelpers
    case other

    static func of(_ sql: String) -> StatementKind {
        let words = SQLScanner.keywords(sql, count: 6, names: true)
        guard let first = words.first else { return .other }
        switch first {
        case "begin", "start":
            return first == "start" && words.dropFirst().first != "transaction" ? .other : .begin
        case "commit", "end":
            return words.dropFirst().first == "prepared" ? .twoPhase : .commit
        case "rollback", "abort":
            var rest = words.dropFirst()
            if rest.first == "work" || rest.first == "transaction" { rest = rest.dropFirst() }
            if rest.first == "to" { return .other }
            return rest.first == "prepared" ? .twoPhase : .rollback
        case "prepare":
            return words.dropFirst().first == "transaction" ? .twoPhase : .other
        case "create":
            guard words.dropFirst().first == "extension" else { return .other }
            var rest = words.dropFirst(2)
            if Array(rest.prefix(3)) == ["if", "not", "exists"] { rest = rest.dropFirst(3) }
            let name = (rest.first ?? "").trimmingCharacters(in: .init(charactersIn: "\""))
            if name == "pgtap" { return .createPgTAP }
            return name.hasSuffix("supabase_test_helpers") ? .installHelpers : .other
        case "select":
            let lower = sql.lowercased()
            return lower.contains("dbdev.install") && lower.contains("supabase_test_helpers") ? .installHelpers : .other
        default:
            return .other
        }
    }
}
