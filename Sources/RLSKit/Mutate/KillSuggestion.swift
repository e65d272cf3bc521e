/// A test to paste that would kill a surviving mutant: an access-file block for its table or
/// bucket, saying who may do what the mutant lets others do.
enum KillSuggestion {
    /// `table` and `policies`: the mutant's table and its policies as the catalog had them.
    static func text(_ m: Mutant, table: MutationCatalog.Table? = nil, policies: [MutationCatalog.Policy] = [])
        -> String?
    {
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
        guard let table else {
            let who = m.hint.ownerColumn != nil ? "owner" : (anonymous ? "signed-in" : "?")
            return "table \(m.table)\n" + (m.hint.ownerColumn.map { "  owner \($0)\n" } ?? "")
                + "  read \(who)\n  write \(who)"
        }
        return block(table, policies: policies, owner: m.hint.ownerColumn)
    }

    static let commands = ["SELECT", "INSERT", "UPDATE", "DELETE"]

    /// A whole access-file block for the table, each command's verdict what the original
    /// policies and grants allow today: the tests then fail wherever a mutant changes it.
    static func block(_ t: MutationCatalog.Table, policies: [MutationCatalog.Policy], owner: String?) -> String {
        var who: [String: String] = [:]
        var unknown: Set<String> = []
        for c in commands {
            if let w = verdict(c, t, policies, owner: owner) { who[c] = w } else { unknown.insert(c) }
        }
        var lines = ["table \(t.display)"]
        if let owner, who.values.contains(where: { $0.contains("owner") }) {
            lines.append("  owner \(SQL.display(owner))")
        }
        func line(_ word: String, _ commands: [String]) -> String {
            let w = who[commands[0]] ?? "?"
            guard let c = commands.first(where: unknown.contains) else { return "  \(word) \(w)" }
            return "  \(word) ?   # who passes today: \(test(c, policies))"
        }
        lines.append(line("read", ["SELECT"]))
        let writes = ["INSERT", "UPDATE", "DELETE"]
        if Set(writes.map { who[$0] ?? "?" }).count == 1 {
            lines.append(line("write", writes))
        } else {
            for c in writes { lines.append(line(c.lowercased(), [c])) }
        }
        return lines.joined(separator: "\n")
    }

    /// The tests of the permissive policies for a command, shortened, for the reader to turn
    /// into `members`, a role or `owner`.
    static func test(_ command: String, _ policies: [MutationCatalog.Policy]) -> String {
        let tests = policies.filter { $0.permissive && ($0.command == command || $0.command == "ALL") }.compactMap {
            command == "INSERT" ? $0.withCheck : $0.using
        }
        let text = tests.map { PolicyExpression($0).canonical }.joined(separator: " OR ")
        return text.count > 90 ? String(text.prefix(89)) + "…" : text
    }

    /// The whole expression is `owner = <the caller>` (an OR or another condition beside it
    /// makes the verdict something else).
    static func isOwnerCheck(_ e: String, _ owner: String) -> Bool {
        var list = PolicyExpression.Parser.parse(e)
        while list.count == 1, case .group(false, let inner) = list[0] { list = inner }
        return PolicyExpression.Scan.binding(list) == owner
    }

    /// Who may use `command` on the table today: anyone, signed-in, owner, nobody; nil when a
    /// policy's test is neither `true` nor a comparison of the owner column with the caller.
    static func verdict(
        _ command: String, _ t: MutationCatalog.Table, _ policies: [MutationCatalog.Policy], owner: String?
    )
        -> String?
    {
        func granted(_ role: String) -> Bool { (t.grants[role] ?? []).contains(command) }
        let applying = policies.filter { $0.permissive && ($0.command == command || $0.command == "ALL") }
        if !t.rls {
            return granted("anon") ? "anyone" : granted("authenticated") ? "signed-in" : "nobody"
        }
        var best = "nobody"
        for p in applying {
            let e = command == "INSERT" ? p.withCheck : p.using
            let anon = (p.roles.contains("anon") || p.roles.contains("public")) && granted("anon")
            let signedIn = (p.roles.contains("authenticated") || p.roles.contains("public")) && granted("authenticated")
            guard anon || signedIn else { continue }
            let w: String
            if MutantGenerator.isTrue(e) {
                w = anon ? "anyone" : "signed-in"
            } else if let e, let owner, isOwnerCheck(e, owner), signedIn {
                w = "owner"
            } else {
                return nil
            }
            let rank = ["nobody": 0, "owner": 1, "signed-in": 2, "anyone": 3]
            if rank[w]! > rank[best]! { best = w }
        }
        // A restrictive policy narrows what the permissive ones allow: its test is not stated here.
        if best != "nobody",
            policies.contains(where: { !$0.permissive && ($0.command == command || $0.command == "ALL") })
        {
            return nil
        }
        return best
    }

    static func bucketId(_ m: Mutant) -> String? {
        m.original.flatMap { p in
            [p.using, p.withCheck].compactMap { $0 }.lazy.map { PolicyExpression($0).bucketIds }.first {
                !$0.isEmpty
            }
        }?.sorted().first
    }
}
