/// A test to paste that would kill a surviving mutant: an access-file block for its table or
/// bucket, saying who may do what the mutant lets others do.
enum KillSuggestion {
    static func text(_ m: Mutant) -> String? {
        let command: String
        var anonymous = false
        switch m.hint.effect {
        case .otherUsersRows(let c): command = c
        case .anonymous(let c):
            command = c
            anonymous = true
        case .everything: command = "ALL"
        case .function(let f):
            return "function \(f.display) callable-by owner   # or whoever the removed check let in"
        case .columns(let c, _, let columns):
            // Only writes have an access-file test of their own: `protect`.
            guard c != "SELECT", let owner = m.hint.ownerColumn else { return nil }
            let names = columns.filter { $0 != owner }.map { SQL.display($0) }.joined(separator: ", ")
            return names.isEmpty ? nil : "table \(m.table)\n  owner \(owner)\n  protect \(names)"
        }
        if m.table == "storage.objects" {
            let bucket = bucketId(m).map { SQL.display($0) } ?? "<bucket>"
            let op = ["SELECT": "read", "INSERT": "upload", "UPDATE": "move", "DELETE": "delete"][command] ?? "write"
            return "bucket \(bucket)\n  ownership folder\n  \(op == "read" ? "read owner" : op + " owner")"
        }
        let who = m.hint.ownerColumn != nil ? "owner" : (anonymous ? "signed-in" : "nobody")
        var lines = ["table \(m.table)"]
        if let owner = m.hint.ownerColumn { lines.append("  owner \(owner)") }
        switch command {
        case "SELECT": lines.append("  read \(who)")
        case "INSERT", "UPDATE", "DELETE": lines.append("  \(command.lowercased()) \(who)")
        default: lines += ["  read \(who)", "  write \(who)"]
        }
        if who == "nobody" {
            lines[lines.count - 1] += "   # nobody but whom the policy names: owner, members, a role"
        }
        return lines.joined(separator: "\n")
    }

    static func bucketId(_ m: Mutant) -> String? {
        m.original.flatMap { p in
            [p.using, p.withCheck].compactMap { $0 }.lazy.map { PolicyExpression($0).bucketIds }.first {
                !$0.isEmpty
            }
        }?.sorted().first
    }
}
