/// Statements whose effect a cloned database does not carry: roles and memberships, role and
/// database settings, privileges on databases, shared comments and labels, tablespaces. Read
/// word by word with quotes ignored, so that dynamic SQL in a DO block or a function body
/// (`execute format('create role %I', …)`) counts too, and so do comments: a false alarm only
/// stops the template chain early, a miss would hand a run a wrong cluster.
enum ClusterWideSQL {
    /// The first file that may reach outside its database, with the line.
    static func first(in files: [SQLFile]) -> (index: Int, line: Int)? {
        for (k, f) in files.enumerated() {
            if let line = firstLine(f.contents) { return (k, line) }
        }
        return nil
    }

    static let objects: Set<String> = ["role", "user", "group"]
    static let anywhere: Set<[String]> = [
        ["alter", "database"], ["create", "database"], ["drop", "database"], ["on", "database"],
        ["on", "role"], ["security", "label"], ["alter", "system"], ["reassign", "owned"],
    ]

    /// The line of the first such statement in `text`; nil when there is none.
    static func firstLine(_ text: String) -> Int? {
        let words = self.words(text)
        for (k, w) in words.enumerated() {
            let next = k + 1 < words.count ? words[k + 1].word : ""
            if ["create", "alter", "drop"].contains(w.word), objects.contains(next) { return w.line }
            if anywhere.contains([w.word, next]) || w.word == "tablespace" { return w.line }
            // GRANT a TO b and REVOKE a FROM b with no ON between: a role membership.
            if w.word == "grant" || w.word == "revoke" {
                let end = w.word == "grant" ? "to" : "from"
                let rest = words[(k + 1)...].prefix(40).map(\.word)
                if let stop = rest.firstIndex(of: end), !rest[..<stop].contains("on") { return w.line }
            }
        }
        return nil
    }

    /// Lower-cased words (letters, digits, `_`) with their lines.
    static func words(_ text: String) -> [(word: String, line: Int)] {
        var out: [(word: String, line: Int)] = []
        var current = ""
        var line = 1
        for c in text.unicodeScalars {
            if c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" {
                current.unicodeScalars.append(c)
                continue
            }
            if !current.isEmpty {
                out.append((current.lowercased(), line))
                current = ""
            }
            if c == "\n" { line += 1 }
        }
        if !current.isEmpty { out.append((current.lowercased(), line)) }
        return out
    }
}
