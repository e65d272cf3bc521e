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
            for a in split(list, at: "AND") { for o in split(a, at: "OR") { body(o) } }
        }
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
                    return inner.indices.contains { i in
                        if case .token(.ident(let f, false)) = inner[i], !f.uppercased().hasPrefix("SELECT"),
                            i + 1 < inner.count, case .group(false, _) = inner[i + 1]
                        {
                            return true
                        }
                        return false
                    }
                }
        }
        return found
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
            let lhs = stripped(Array(p[..<ops[0]])), rhs = stripped(Array(p[(ops[0] + 1)...]))
            guard isColumnRef(lhs), PolicyExpression.Render.nodes(lhs) == PolicyExpression.Render.nodes(rhs) else {
                return
            }
            out.append(PolicyExpression.Render.nodes(p))
        }
        return out
    }

    /// The conjuncts of the expression when every one is an EXISTS or IN subquery that reads
    /// a table, never names the policy's table `table` (no correlation with the row), and
    /// does not compare anything with the caller directly: true for every row or for none.
    static func uncorrelatedRestriction(_ nodes: [Node], table: String) -> String? {
        let parts = conjuncts(nodes).map(stripped)
        guard !parts.isEmpty else { return nil }
        for p in parts {
            let sub: [Node]
            if p.count == 2, p[0].token?.isKeyword("EXISTS") == true, case .group(false, let inner) = p[1] {
                sub = inner
            } else {
                return nil
            }
            guard inner(sub, isUncorrelatedWith: table) else { return nil }
        }
        return parts.map { PolicyExpression.Render.nodes($0) }.joined(separator: " AND ")
    }

    static func inner(_ sub: [Node], isUncorrelatedWith table: String) -> Bool {
        guard sub.first?.token?.isKeyword("SELECT") == true, hasFrom(sub) else { return false }
        var caller = false
        lists(sub) { l in if binding(l) != nil { caller = true } }
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
