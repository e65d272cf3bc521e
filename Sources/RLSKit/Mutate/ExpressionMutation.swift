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

    /// The first comparison of one of the row's columns with the caller's identity, outside
    /// subqueries (so the column is the policy's table's): (the column, a function writing the
    /// expression with another column in its place); nil when there is none.
    static func identityColumn(_ text: String) -> (column: String, with: (String) -> String)? {
        let nodes = PolicyExpression.Parser.parse(text)
        guard let path = identityColumnPath(nodes), case .token(.ident(let column, _)) = node(nodes, at: path)
        else { return nil }
        return (
            column,
            { other in
                sql(replacing(nodes, at: path, with: .token(.ident(other, quoted: SQL.ident(other) != other))))
            }
        )
    }

    /// Indexes (group by group) of the bare column compared with the identity.
    private static func identityColumnPath(_ nodes: [Node]) -> [Int]? {
        if let i = identityEquality(nodes) {
            let l = PolicyExpression.Scan.hasIdentity(Array(nodes[..<i]))
            var side = l ? i + 1..<nodes.count : 0..<i
            var prefix: [Int] = []
            var list = Array(nodes)
            // `(owner_id)` as well as `owner_id`.
            while side.count == 1, case .group(false, let inner) = list[side.lowerBound] {
                prefix.append(side.lowerBound)
                list = inner
                side = 0..<inner.count
            }
            if side.count == 1, case .token(.ident) = list[side.lowerBound] { return prefix + [side.lowerBound] }
            return nil
        }
        for (i, n) in nodes.enumerated() {
            guard case .group(false, let inner) = n, inner.first?.token?.isKeyword("SELECT") != true else { continue }
            if let p = identityColumnPath(inner) { return [i] + p }
        }
        return nil
    }

    private static func node(_ nodes: [Node], at path: [Int]) -> Node? {
        guard let first = path.first, nodes.indices.contains(first) else { return nil }
        if path.count == 1 { return nodes[first] }
        guard case .group(_, let inner) = nodes[first] else { return nil }
        return node(inner, at: Array(path.dropFirst()))
    }

    private static func replacing(_ nodes: [Node], at path: [Int], with new: Node) -> [Node] {
        var copy = nodes
        if path.count == 1 {
            copy[path[0]] = new
        } else if case .group(let bracket, let inner) = copy[path[0]] {
            copy[path[0]] = .group(bracket: bracket, replacing(inner, at: Array(path.dropFirst()), with: new))
        }
        return copy
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
