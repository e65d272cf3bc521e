/// A `?` left by `rlskit init` is a question nobody answered yet: the file must not run.
extension AccessFile.Parser {
    static let questions = [
        "read": "who may read", "write": "who may insert, update and delete", "insert": "who may insert",
        "update": "who may update", "delete": "who may delete", "owner": "the column holding the owner's user id",
        "group": "the column holding the row's group", "roles": "the role values, the group owner's first",
        "add": "who may add others to a group", "remove": "who may remove others from a group",
        "leave": "whether a member may leave (members or nobody)", "change-role": "who may change others' roles",
        "protect": "the columns a user may not set on their own row (or delete the line)",
        "claim": "where the platform puts the claim: app_metadata.KEY = VALUE, or KEY = VALUE",
        "ownership": "folder, owner-id or group", "upload": "who may upload", "overwrite": "who may overwrite",
        "move": "who may move or rename", "list": "who may list",
    ]

    /// The error for a setting whose value is still `?`; nil once it is answered. Seed lines
    /// are SQL, where `?` is an operator.
    func unanswered(_ line: Line) -> InputError? {
        guard line.key != "seed", line.words.dropFirst().contains("?") else { return nil }
        let what: String
        switch block {
        case .table(let t): what = "table \(file.tables[t].qualifiedName)"
        case .members(let m): what = "members \(file.memberships[m].qualifiedName)"
        case .bucket(let b): what = "bucket \(file.buckets[b].id)"
        case .role(let r): what = "role \(file.roles[r].name)"
        case .none: return nil
        }
        var answer = Self.questions[line.key] ?? "your answer"
        if case .bucket = block, line.key == "write" { answer = "who may upload, overwrite, move and delete" }
        return InputError(line.at, "\(what): '\(line.key)' is not answered yet: replace '?' with \(answer)")
    }
}
