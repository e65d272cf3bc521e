import Foundation

/// Many projects leave out the foreign key to auth.users (`user_id uuid not null`): a uuid
/// column with no reference is still a user's id when a policy, or a helper a policy calls,
/// compares it with `auth.uid()`. Those comparisons are the evidence `rlskit init` names.
extension AccessDraft {
    /// Sets `userVia` on uuid columns without a foreign key that a policy on their table, any
    /// policy's subquery over their table, or a called helper's body compares with the caller's id.
    static func markPolicyUsers(_ tables: [Table], helpers: [String: String]) -> [Table] {
        // `own`: the policy's table and its columns (an unqualified name in its subquery may be its own).
        var texts: [(source: String, text: String, own: String?, ownColumns: Set<String>)] = []
        for t in tables {
            let columns = Set(t.columns.map { $0.name.lowercased() })
            for p in t.policies {
                for e in [p.using, p.check].compactMap({ $0 }) {
                    texts.append(("policy \"\(p.name)\" on \(t.qualifiedName)", e, t.qualifiedName, columns))
                }
            }
        }
        for (name, body) in helpers.sorted(by: { $0.key < $1.key }) { texts.append(("\(name)()", body, nil, [])) }

        var out = tables
        for i in out.indices {
            let t = out[i]
            let candidates = t.columns.indices.filter {
                t.columns[$0].userVia == nil && t.columns[$0].references == nil && t.columns[$0].baseType == "uuid"
            }
            guard !candidates.isEmpty else { continue }
            for (source, text, own, ownColumns) in texts {
                var names = Set<String>()
                if own == t.qualifiedName {
                    // The policy's own row: `user_id = auth.uid()` or `notes.user_id = auth.uid()`.
                    for c in uidComparisons(text, rowOnly: true) {
                        if c.qualifier == nil || c.qualifier == t.name.lowercased() { names.insert(c.column) }
                    }
                }
                let aliases = aliases(of: t, in: text)
                if !aliases.isEmpty {
                    for c in uidComparisons(text, rowOnly: false) {
                        if let q = c.qualifier {
                            if aliases.contains(q) { names.insert(c.column) }
                        } else if own != t.qualifiedName && !ownColumns.contains(c.column) {
                            names.insert(c.column)
                        }
                    }
                }
                for j in candidates
                where out[i].columns[j].userVia == nil && names.contains(t.columns[j].name.lowercased()) {
                    out[i].columns[j].userVia = "compared with auth.uid() in \(source)"
                }
            }
        }
        return out
    }

    /// Column references compared with `auth.uid()` (or the JWT's `sub`), casts dropped:
    /// `m.user_id = (select auth.uid())` gives ("m", "user_id").
    static func uidComparisons(_ text: String, rowOnly: Bool) -> [(qualifier: String?, column: String)] {
        typealias E = PolicyExpression
        let nodes = E.Parser.parse(text)
        var out: [(String?, String)] = []
        let visit: ([E.Node]) -> Void = { list in
            for part in E.Scan.split(list, at: "AND").flatMap({ E.Scan.split($0, at: "OR") }) {
                guard let side = E.Scan.binding(part), let identity = identitySide(part), isCallerID(identity)
                else { continue }
                guard
                    let r = side.range(
                        of: #"(?:"?[A-Za-z_][\w$]*"?\.)?"?[A-Za-z_][\w$]*"?$"#, options: .regularExpression)
                else { continue }
                let ref = side[r].replacingOccurrences(of: "\"", with: "").lowercased()
                // `select 1 from t where user_id`: only the last reference is the compared one.
                let before = side[..<r.lowerBound].trimmingCharacters(in: .whitespaces)
                guard before.isEmpty || before.lowercased().hasSuffix("where") || before.hasSuffix("(") else {
                    continue
                }
                let parts = ref.split(separator: ".").map(String.init)
                out.append(parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0]))
            }
        }
        if rowOnly { E.Scan.rowLists(nodes, visit) } else { E.Scan.lists(nodes, visit) }
        return out
    }

    /// The side of `a = b` that is not a plain reference, rendered; nil for other comparisons.
    static func identitySide(_ part: [PolicyExpression.Node]) -> String? {
        let ops = part.indices.filter { if case .token(.op("=")) = part[$0] { true } else { false } }
        guard ops.count == 1 else { return nil }
        let lhs = PolicyExpression.Render.nodes(Array(part[..<ops[0]]))
        let rhs = PolicyExpression.Render.nodes(Array(part[(ops[0] + 1)...]))
        return PolicyExpression.Scan.hasIdentity(Array(part[..<ops[0]])) ? lhs : rhs
    }

    /// The caller's id itself, not a subquery that uses it (`id in (select … where user_id = auth.uid())`).
    static func isCallerID(_ rendered: String) -> Bool {
        var s = rendered.lowercased().replacingOccurrences(of: " ", with: "")
        while s.hasPrefix("("), s.hasSuffix(")") { s = String(s.dropFirst().dropLast()) }
        return s == "auth.uid()" || s == "selectauth.uid()" || s == "selectauth.uid()asuid"
            || s.hasPrefix("auth.jwt()->>'sub'") || s.hasPrefix("selectauth.jwt()->>'sub'")
            || s.hasPrefix("current_setting('request.jwt.claim.sub'")
    }

    /// The names `text` reads table `t` by after FROM or JOIN: its own name and any alias.
    /// Empty when the text does not read it.
    static func aliases(of t: Table, in text: String) -> Set<String> {
        // Most texts do not name the table: no pattern to build for them.
        guard text.range(of: t.name, options: .caseInsensitive) != nil else { return [] }
        let name = NSRegularExpression.escapedPattern(for: t.name)
        let schema = NSRegularExpression.escapedPattern(for: t.schema)
        let pattern =
            #"(?i)\b(?:from|join)\s+(?:only\s+)?(?:"?"# + schema + #""?\.)?"?"# + name
            + #""?(?![\w$."])(?:\s+(?:as\s+)?"?([A-Za-z_][\w$]*)"?)?"#
        guard let re = try? NSRegularExpression(pattern: pattern) else { return [] }
        let ns = text as NSString
        var out = Set<String>()
        let keywords: Set<String> = [
            "where", "join", "on", "left", "right", "inner", "full", "cross", "using", "limit", "order", "group",
            "union", "natural", "set", "returning", "for", "window", "having", "offset", "fetch", "lateral",
        ]
        for m in re.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            out.insert(t.name.lowercased())
            if m.range(at: 1).location != NSNotFound {
                let a = ns.substring(with: m.range(at: 1)).lowercased()
                if !keywords.contains(a) { out.insert(a) }
            }
        }
        return out
    }
}
