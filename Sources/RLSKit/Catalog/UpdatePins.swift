/// The constants a WITH CHECK demands of a row: in `(a = auth.uid()) AND (status = 'accepted'::text)`,
/// `status` must be `'accepted'` after the update. A caller writes them along with the change
/// they are after, so an attack that is refused only for want of them sets them too.
enum UpdatePins {
    /// `column = constant[::type]` conjuncts (a string, a number, true or false) of `check` (as pg_get_expr prints it) on `columns`;
    /// none where the expression has an OR (a pin under it is one choice among others).
    static func find(in check: String, columns: Set<String>) -> [(column: String, value: String)] {
        let s = Array(check.unicodeScalars)
        let tokens = SQLLexer.tokens(s).filter { !$0.isTrivia }
        func text(_ t: SQLToken) -> String { String(String.UnicodeScalarView(s[t.start..<t.end])) }
        func name(_ t: SQLToken) -> String? {
            switch t.kind {
            case .word: return text(t)
            case .quotedName: return String(text(t).dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
            default: return nil
            }
        }
        if tokens.contains(where: { $0.kind == .word && text($0).lowercased() == "or" }) { return [] }
        var out: [(column: String, value: String)] = []
        var i = 0
        while i + 2 < tokens.count {
            defer { i += 1 }
            let before = i > 0 ? text(tokens[i - 1]).lowercased() : "("
            func constant(_ t: SQLToken) -> Bool {
                (t.kind == .string && t.closed) || t.kind == .number
                    || (t.kind == .word && ["true", "false"].contains(text(t).lowercased()))
            }
            guard before == "(" || before == "and", let col = name(tokens[i]), columns.contains(col),
                tokens[i + 1].kind == .op, text(tokens[i + 1]) == "="
            else { continue }
            // `status IN ('accepted', 'rejected')` prints as `status = ANY (ARRAY['accepted'::text, …])`:
            // any one of them will do, the first is taken.
            var v = i + 2
            var any = false
            if v + 4 < tokens.count, text(tokens[v]).lowercased() == "any", text(tokens[v + 1]) == "(",
                text(tokens[v + 2]).lowercased() == "array", text(tokens[v + 3]) == "["
            {
                (v, any) = (v + 4, true)
            }
            guard constant(tokens[v]) else { continue }
            let value = tokens[v]
            var j = v + 1
            if any {
                // Past the array and the ANY's parenthesis: constants and casts only.
                var depth = 2
                while j < tokens.count, depth > 0 {
                    let x = text(tokens[j])
                    if x == "[" || x == "(" { depth += 1 } else if x == "]" || x == ")" { depth -= 1 }
                    j += 1
                }
                guard depth == 0 else { continue }
            }
            // The literal ends the conjunct (a cast may follow: `::text`, `::public.state`,
            // `::character varying`).
            if j < tokens.count, text(tokens[j]) == "::" {
                j += 1
                while j < tokens.count,
                    tokens[j].kind == .word || tokens[j].kind == .quotedName || text(tokens[j]) == ".",
                    text(tokens[j]).lowercased() != "and"
                {
                    j += 1
                }
            }
            guard j >= tokens.count || [")", "and"].contains(text(tokens[j]).lowercased()) else { continue }
            if !out.contains(where: { $0.column == col }) { out.append((col, text(value))) }
        }
        return out
    }

    /// The pins of the policy an owner moving their own row passes: one whose WITH CHECK names
    /// the owner column, else the first policy that pins anything (policies are alternatives:
    /// their pins are never mixed).
    static func chosen(_ info: TableInfo, owner: String) -> [(column: String, value: String)] {
        let columns = Set(info.columns.map(\.name))
        let sets = info.updateChecks.map { ($0, find(in: $0, columns: columns)) }.filter { !$0.1.isEmpty }
        // The row's own column: `user_id` or `invites.user_id`, not a subquery's `m.user_id`.
        let named = sets.first { set in
            let s = Array(set.0.unicodeScalars)
            let t = SQLLexer.tokens(s).filter { !$0.isTrivia }
            func text(_ k: Int) -> String { String(String.UnicodeScalarView(s[t[k].start..<t[k].end])) }
            return !owner.isEmpty
                && t.indices.contains { k in
                    t[k].kind == .word && text(k) == owner
                        && (k == 0 || text(k - 1) != "." || (k >= 2 && text(k - 2) == info.name))
                }
        }
        return (named ?? sets.first)?.1 ?? []
    }
}
