/// How the runner treats a top-level statement of a pgTAP file. Files run inside a
/// transaction of ours, so their own transaction control is mapped onto savepoints in it.
enum StatementKind: Equatable {
    /// BEGIN / START TRANSACTION: opens the file's own transaction.
    case begin
    /// COMMIT / END: keeps the file's work for the files after it (until the run ends).
    case commit
    /// ROLLBACK / ABORT: undoes the file's own transaction.
    case rollback
    /// PREPARE TRANSACTION, COMMIT/ROLLBACK PREPARED: would outlive the run.
    case twoPhase
    /// CREATE EXTENSION pgtap, when we created it for this file already.
    case createPgTAP
    /// Installing basejump's helpers (extension or dbdev): ours are built in.
    case installHelpers
    case other

    /// `dbdev`: the file installs the helpers through dbdev, so the whole preamble (http,
    /// pg_tle, supabase-dbdev) is skipped, not only the helpers' own lines. `wrappers`: the
    /// preamble's functions the file defines (see `preambleFunction`), whose calls are skipped.
    static func of(_ sql: String, dbdev: Bool = false, wrappers: Set<String> = []) -> StatementKind {
        of(sql, words: SQLScanner.keywords(sql, count: 6, names: true), dbdev: dbdev, wrappers: wrappers)
    }

    /// `words`: the statement's first six words, names too, as `SQLScanner.keywords` gives them.
    static func of(_ sql: String, words: [String], dbdev: Bool, wrappers: Set<String> = []) -> StatementKind {
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
        case "create", "drop":
            if dbdev, first == "create", preambleFunction(sql) != nil { return .installHelpers }
            if first == "drop", words.dropFirst().first == "function",
                words.dropFirst(2).contains(where: wrappers.contains)
            {
                return .installHelpers
            }
            guard words.dropFirst().first == "extension" else { return .other }
            var rest = words.dropFirst(2)
            if Array(rest.prefix(3)) == ["if", "not", "exists"] { rest = rest.dropFirst(3) }
            if Array(rest.prefix(2)) == ["if", "exists"] { rest = rest.dropFirst(2) }
            let name = (rest.first ?? "").trimmingCharacters(in: .init(charactersIn: "\""))
            if name == "pgtap" { return first == "create" ? .createPgTAP : .other }
            if name.hasSuffix("supabase_test_helpers") { return .installHelpers }
            return dbdev && preambleExtensions.contains(name) ? .installHelpers : .other
        case "select":
            let lower = sql.lowercased()
            if lower.contains("dbdev.install") && lower.contains("supabase_test_helpers") { return .installHelpers }
            guard dbdev else { return .other }
            if words.dropFirst().prefix(2).contains(where: wrappers.contains) { return .installHelpers }
            return ["dbdev.", "pgtle.", "database.dev"].contains { lower.contains($0) } ? .installHelpers : .other
        case "do":
            // The preamble inside an anonymous block (often guarded by exception handlers).
            let lower = sql.lowercased()
            return dbdev && ["dbdev.install", "pgtle.install_extension"].contains(where: lower.contains)
                ? .installHelpers : .other
        default:
            return .other
        }
    }

    /// Extensions only the dbdev preamble needs.
    static let preambleExtensions: Set<String> = ["http", "pg_tle", "supabase-dbdev"]

    /// The name of a function this statement creates to run the dbdev install (a spelling that
    /// wraps the preamble in `create function install_extensions() … $$ … pgtle.… $$`), else nil.
    static func preambleFunction(_ sql: String) -> String? {
        var words = SQLScanner.keywords(sql, count: 4, names: true)
        guard words.first == "create" else { return nil }
        words.removeFirst()
        if words.prefix(2) == ["or", "replace"] { words.removeFirst(2) }
        guard let kind = words.first, kind == "function" || kind == "procedure" else { return nil }
        let lower = sql.lowercased()
        guard ["dbdev.install", "pgtle.install_extension"].contains(where: lower.contains),
            let at = lower.range(of: kind), let paren = lower[at.upperBound...].firstIndex(of: "(")
        else { return nil }
        let qualified = lower[at.upperBound..<paren].trimmingCharacters(in: .whitespacesAndNewlines)
        let name = qualified.split(separator: ".").last.map(String.init) ?? qualified
        return name.trimmingCharacters(in: .init(charactersIn: "\""))
    }

    /// The file installs supabase-test-helpers through dbdev.
    static func mentionsDbdev(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains("supabase_test_helpers") || lower.contains("supabase-dbdev")
            || lower.contains("dbdev.install")
    }
}
