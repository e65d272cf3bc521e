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
            let value = tokens[i + 2]
            let constant =
                (value.kind == .string && value.closed) || value.kind == .number
                || (value.kind == .word && ["true", "false"].contains(text(value).lowercased()))
            guard before == "(" || before == "and", let col = name(tokens[i]), columns.contains(col),
                tokens[i + 1].kind == .op, text(tokens[i + 1]) == "=", constant
            else { continue }
            // The literal ends the conjunct (a cast may follow: `::text`, `::public.state`,
            // `::character varying`).
            var j = i + 3
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
            if !out.contains(where: { $0.column == col }) { out.append((col, text(tokens[i + 2]))) }
        }
        return out
    }
}
