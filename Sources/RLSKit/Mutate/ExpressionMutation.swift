/// Mutations of one deparsed policy expression, found with the policy-expression parser and
/// written back as SQL that runs (casts kept, unlike the normal form the lints compare).
enum ExpressionMutation {
    typealias Node = PolicyExpression.Node

    /// The expression without its `index`-th top-level conjunct; nil when it has fewer than two.
    static func conjuncts(_ text: String) -> [String] {
        let parts = PolicyExpression.Scan.conjuncts(PolicyExpression.Parser.parse(text))
        return parts.count < 2
            ? []
            : parts.map { part in
                var p = part
                while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
                return sql(p)
            }
    }

    static func dropping(_ index: Int, of text: String) -> String? {
        let parts = conjuncts(text)
        guard parts.indices.contains(index) else { return nil }
        var rest = parts
        rest.remove(at: index)
        return rest.map { "(\($0))" }.joined(separator: " AND ")
    }

    /// The first comparison of something with the caller's identity, `=` turned into `<>`:
    /// (mutated text, the comparison as written); nil when there is none.
    static func invertingIdentity(_ text: String) -> (text: String, comparison: String)? {
        var found: String?
        let out = invert(PolicyExpression.Parser.parse(text), found: &found)
        return found.map { (sql(out), $0) }
    }

    private static func invert(_ nodes: [Node], found: inout String?) -> [Node] {
        if found == nil, let i = identityEquality(nodes) {
            found = sql(nodes)
            var copy = nodes
            copy[i] = .token(.op("<>"))
            return copy
        }
        return nodes.map { n in
            guard found == nil, case .group(let bracket, let inner) = n else { return n }
            return .group(bracket: bracket, invert(inner, found: &found))
        }
    }

    /// The index of the one `=` in a list without AND/OR whose one side calls auth.uid/jwt/email.
    private static func identityEquality(_ list: [Node]) -> Int? {
        if list.contains(where: { $0.token?.isKeyword("AND") == true || $0.token?.isKeyword("OR") == true }) {
            return nil
        }
        let ops = list.indices.filter { list[$0].token == .op("=") }
        guard ops.count == 1 else { return nil }
        let l = PolicyExpression.Scan.hasIdentity(Array(list[..<ops[0]]))
        let r = PolicyExpression.Scan.hasIdentity(Array(list[(ops[0] + 1)...]))
        return l != r ? ops[0] : nil
    }

    /// Nodes back to SQL, casts and quoting kept.
    static func sql(_ nodes: [Node]) -> String {
        var out = ""
        var glueNext = false
        for n in nodes {
            var piece: String
            var glue = glueNext
            glueNext = false
            switch n {
            case .token(.ident(let s, let quoted)):
                piece = quoted ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
            case .token(.string(let s)): piece = "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
            case .token(.number(let s)), .token(.op(let s)): piece = s
            case .token(.comma):
                piece = ","
                glue = true
            case .token(.dot), .token(.cast):
                piece = n.token == .dot ? "." : "::"
                glue = true
                glueNext = true
            case .group(let bracket, let inner):
                piece = (bracket ? "[" : "(") + sql(inner) + (bracket ? "]" : ")")
                // A call's or a subscript's bracket sits on what it follows.
                if bracket || out.last.map({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "\"" }) == true {
                    glue = glue || bracket || !endsWithKeyword(out)
                }
            }
            if !out.isEmpty, !glue { out += " " }
            out += piece
        }
        return out
    }

    static let keywords = PolicyExpression.Render.operatorKeywords.union([
        "WHERE", "FROM", "ON", "JOIN", "HAVING", "BY", "USING", "LIMIT",
    ])

    /// `… AND (` keeps its space: AND is no function.
    private static func endsWithKeyword(_ s: String) -> Bool {
        let word = s.reversed().prefix { $0.isLetter || $0 == "_" }
        return keywords.contains(String(word.reversed()).uppercased())
    }
}
