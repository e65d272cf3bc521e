// Questions about a policy's subqueries and comparisons.
extension PolicyExpression.Scan {
    typealias Node = PolicyExpression.Node

    static func hasFrom(_ list: [Node]) -> Bool { list.contains { $0.token?.isKeyword("FROM") == true } }

    static func stripped(_ part: [Node]) -> [Node] {
        var p = part
        while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
        return p
    }

    /// AND/OR operands of every list at every depth.
    static func operands(_ nodes: [Node], _ body: ([Node]) -> Void) {
        lists(nodes) { list in
            for a in split(list, at: "AND") { for o in split(a, at: "OR") { body(predicate(o)) } }
        }
    }

    static let clauseEnd: Set<String> = ["LIMIT", "ORDER", "GROUP", "OFFSET", "UNION", "INTERSECT", "EXCEPT"]

    /// An operand without the `SELECT … WHERE` before it or the `LIMIT …` after it: a function
    /// body, unlike a deparsed policy, does not put its conditions in parentheses.
    static func predicate(_ part: [Node]) -> [Node] {
        var p = part
        if let w = p.lastIndex(where: { n in ["WHERE", "ON", "HAVING"].contains { n.token?.isKeyword($0) == true } }) {
            p = Array(p[(w + 1)...])
        }
        if let e = p.firstIndex(where: { n in clauseEnd.contains { n.token?.isKeyword($0) == true } }) {
            p = Array(p[..<e])
        }
        return p
    }

    static func bucketIds(_ nodes: [Node]) -> Set<String> {
        var out = Set<String>()
        operands(nodes) { part in
            guard part.contains(where: { $0.token == .ident("bucket_id", quoted: false) }),
                part.contains(where: { $0.token == .op("=") })
            else { return }
            for case .string(let s) in tokens(part) { out.insert(s) }
        }
        return out
    }

    /// `<something of name> IN (SELECT f(…))` or `= ANY (SELECT …)`: the object name checked
    /// against a set a function computes for the caller.
    static func hasNameMembershipCheck(_ nodes: [Node]) -> Bool {
        var found = false
        operands(nodes) { part in
            guard let op = part.firstIndex(where: { $0.token?.isKeyword("IN") == true || $0.token == .op("=") })
            else { return }
            let lhs = tokens(Array(part[..<op]))
            guard lhs.contains(.ident("name", quoted: false)) else { return }
            let rhs = Array(part[(op + 1)...])
            found =
                found
                || rhs.contains { node in
                    guard case .group(false, let inner) = node, inner.first?.token?.isKeyword("SELECT") == true else {
                        return false
                    }
                    return containsCall(inner)
                }
        }
        return found
    }

    /// A function call anywhere in `nodes`, also inside parentheses: pg_get_expr prints a cast
    /// call as `(my_orgs())::text`.
    static func containsCall(_ nodes: [Node]) -> Bool {
        nodes.indices.contains { i in
            if case .token(.ident(let f, false)) = nodes[i], !f.uppercased().hasPrefix("SELECT"),
                i + 1 < nodes.count, case .group(false, _) = nodes[i + 1]
            {
                return true
            }
            if case .group(_, let inner) = nodes[i] { return containsCall(inner) }
            return false
        }
    }

    /// A column reference: `a`, `a.b`, quoted or not.
    static func isColumnRef(_ p: [Node]) -> Bool {
        guard p.count == 1 || (p.count == 3 && p[1].token == .dot) else { return false }
        return p.enumerated().allSatisfy { i, n in
            if i == 1 { return true }
            if case .token(.ident(let s, let quoted)) = n {
                return quoted || !["TRUE", "FALSE", "NULL"].contains(s.uppercased())
            }
            return false
        }
    }

    static func selfComparisons(_ nodes: [Node]) -> [String] {
        var out: [String] = []
        operands(nodes) { part in
            // A parenthesised operand is read again as a list of its own.
            guard part.count > 1 else { return }
            let p = part
            let ops = p.indices.filter { p[$0].token == .op("=") }
            guard ops.count == 1 else { return }
            let lhs = stripped(Array(p[..<ops[0]]))
            let rhs = stripped(Array(p[(ops[0] + 1)...]))
            guard isColumnRef(lhs), PolicyExpression.Render.nodes(lhs) == PolicyExpression.Render.nodes(rhs) else {
                return
            }
            out.append(PolicyExpression.Render.nodes(p))
        }
        return out
    }

    /// The conjuncts of the expression when each is an EXISTS, IN or scalar subquery that reads
    /// a table, never names the policy's table `table` (no correlation with the row), and does
    /// not compare anything with the caller directly, or a row-free test such as a role check:
    /// true for every row or for none.
    static func uncorrelatedRestriction(_ nodes: [Node], table: String) -> String? {
        let parts = conjuncts(nodes).map(stripped)
        var decided: [String] = []
        for p in parts {
            var subs: [[Node]] = []
            var rest: [Node] = []
            // A bare scalar subquery (`( SELECT true FROM … LIMIT 1)`) lost its parentheses to `stripped`.
            split([.group(bracket: false, p)], subqueries: &subs, rest: &rest)
            // `bucket_id = 'avatars'` picks the rows but not whose they are.
            if subs.isEmpty, isConstantFilter(p) { continue }
            guard !hasIdentity(rest), !hasColumnRef(rest) else { return nil }
            guard subs.allSatisfy({ inner($0, isUncorrelatedWith: table) }) else { return nil }
            if !subs.isEmpty { decided.append(PolicyExpression.Render.nodes(p)) }
        }
        return decided.isEmpty ? nil : decided.joined(separator: " AND ")
    }

    /// `column = constant` (or `column in (constants)`): a filter on the row that says nothing of the caller.
    static func isConstantFilter(_ p: [Node]) -> Bool {
        guard let (l, r) = comparison(p), !hasIdentity(p) else { return false }
        let (ls, rs) = (PolicyExpression.Render.nodes(l), PolicyExpression.Render.nodes(r))
        return (isColumnRef(l) && PolicyExpression.isConstant(rs))
            || (isColumnRef(r) && PolicyExpression.isConstant(ls))
    }

    /// Separates the subqueries that read a table (outermost only) from the rest of `nodes`.
    static func split(_ nodes: [Node], subqueries: inout [[Node]], rest: inout [Node]) {
        for n in nodes {
            guard case .group(let bracket, let inner) = n else {
                rest.append(n)
                continue
            }
            if inner.first?.token?.isKeyword("SELECT") == true, hasFrom(inner) {
                subqueries.append(inner)
                rest.append(.group(bracket: bracket, []))
            } else {
                var innerRest: [Node] = []
                split(inner, subqueries: &subqueries, rest: &innerRest)
                rest.append(.group(bracket: bracket, innerRest))
            }
        }
    }

    static let expressionKeywords: Set<String> = [
        "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "IN", "LIKE", "ILIKE", "SIMILAR", "TO", "BETWEEN",
        "CASE", "WHEN", "THEN", "ELSE", "END", "ANY", "ALL", "SOME", "ARRAY", "DISTINCT", "FROM", "AS", "EXISTS",
        "SELECT",
    ]

    /// Names a column outside any subquery: at the top of a policy expression that is a column
    /// of the policy's table (the server qualifies nothing there).
    static func hasColumnRef(_ nodes: [Node]) -> Bool {
        var i = 0
        while i < nodes.count {
            switch nodes[i] {
            case .token(.cast):
                i = PolicyExpression.Render.skipType(nodes, after: i)
                continue
            case .token(.ident(let s, let quoted)):
                let next = i + 1 < nodes.count ? nodes[i + 1] : nil
                if case .group(false, _)? = next {
                    // A function's name.
                } else if next?.token == .dot {
                    i += 2
                    continue
                } else if i > 0, nodes[i - 1].token?.isKeyword("AS") == true {
                    // An output name: `( SELECT my_org() AS my_org)`.
                } else if quoted || !expressionKeywords.contains(s.uppercased()) {
                    return true
                }
            case .group(_, let inner):
                if hasColumnRef(inner) { return true }
            default: break
            }
            i += 1
        }
        return false
    }

    static func inner(_ sub: [Node], isUncorrelatedWith table: String) -> Bool {
        guard sub.first?.token?.isKeyword("SELECT") == true, hasFrom(sub) else { return false }
        var caller = false
        lists(sub) { l in if binding(l) != nil { caller = true } }
        operands(sub) { o in if binding(o) != nil { caller = true } }
        if caller { return false }
        let t = tokens(sub)
        for i in t.indices {
            guard case .ident(let s, _) = t[i], s == table, i + 1 < t.count, t[i + 1] == .dot else { continue }
            // `public.notes` in FROM is the table itself, not a reference to the outer row.
            if i > 0, t[i - 1] == .dot { continue }
            return false
        }
        return true
    }
}
