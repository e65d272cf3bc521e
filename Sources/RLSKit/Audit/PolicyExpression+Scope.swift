// Which table a column of a subquery is: SQL resolves an unqualified name to the innermost FROM
// item that has such a column, so a name the policy's table also has may never reach its row.
extension PolicyExpression.Scan {
    /// A table after FROM or JOIN and the name the subquery refers to it by.
    struct FromItem: Equatable {
        var table: String
        var alias: String
    }

    /// The columns of a table as written (`memberships`, `public.memberships`), nil when unknown.
    typealias Columns = (String) -> Set<String>?

    static let fromEnd: Set<String> = [
        "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "INTERSECT", "EXCEPT", "OFFSET", "FETCH", "WINDOW",
    ]
    static let joinWords: Set<String> = ["JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "OUTER", "NATURAL", "ON"]

    /// The FROM items of one subquery's own list (not of the subqueries inside it).
    static func fromItems(_ sub: [Node]) -> [FromItem] {
        var out: [FromItem] = []
        var inFrom = false
        var inOn = false
        var i = 0
        while i < sub.count {
            let t = sub[i].token
            if t?.isKeyword("FROM") == true || t?.isKeyword("JOIN") == true || (inFrom && !inOn && t == .comma) {
                inFrom = true
                inOn = false
                var j = i + 1
                guard j < sub.count, case .token(.ident(var name, _)) = sub[j] else {
                    i += 1
                    continue
                }
                if j + 2 < sub.count, sub[j + 1].token == .dot, case .token(.ident(let rel, _)) = sub[j + 2] {
                    name += "." + rel
                    j += 2
                }
                var k = j + 1
                if k < sub.count, sub[k].token?.isKeyword("AS") == true { k += 1 }
                var alias = String(name.split(separator: ".").last ?? "")
                if k < sub.count, case .token(.ident(let a, let quoted)) = sub[k],
                    quoted || !(fromEnd.contains(a.uppercased()) || joinWords.contains(a.uppercased()))
                {
                    alias = a
                    j = k
                }
                out.append(FromItem(table: name, alias: alias))
                i = j + 1
                continue
            }
            if let t, case .ident(let s, false) = t {
                if fromEnd.contains(s.uppercased()) { inFrom = false }
                if s.uppercased() == "ON" { inOn = true }
            }
            i += 1
        }
        return out
    }

    static func isSubquery(_ inner: [Node]) -> Bool {
        inner.first?.token?.isKeyword("SELECT") == true && hasFrom(inner)
    }

    /// Calls `body` for every subquery that reads a table, with its FROM items first, then those
    /// of the subqueries around it, and the outermost subquery it lies in.
    static func subqueries(
        _ nodes: [Node], scope: [FromItem] = [], top: [Node]? = nil,
        _ body: (_ sub: [Node], _ scope: [FromItem], _ top: [Node]) -> Void
    ) {
        for n in nodes {
            guard case .group(_, let inner) = n else { continue }
            if isSubquery(inner) {
                let s = fromItems(inner) + scope
                body(inner, s, top ?? inner)
                subqueries(inner, scope: s, top: top ?? inner, body)
            } else {
                subqueries(inner, scope: scope, top: top, body)
            }
        }
    }

    /// The subquery's own lists: itself and its groups that are not subqueries.
    static func ownLists(_ sub: [Node], _ body: ([Node]) -> Void) {
        body(sub)
        for n in sub {
            if case .group(false, let inner) = n, inner.first?.token?.isKeyword("SELECT") != true {
                ownLists(inner, body)
            }
        }
    }

    /// Column names in `nodes` outside subqueries, with their qualifier: `m.team_id`, `name`.
    static func columnRefs(_ nodes: [Node]) -> [(qualifier: String?, column: String)] {
        var out: [(String?, String)] = []
        var i = 0
        while i < nodes.count {
            switch nodes[i] {
            case .token(.cast):
                i = PolicyExpression.Render.skipType(nodes, after: i)
                continue
            case .token(.ident(let s, let quoted)):
                let next = i + 1 < nodes.count ? nodes[i + 1] : nil
                if next?.token == .dot {
                    // `q.c` (a column) or `s.f(…)` (a function).
                    if i + 2 < nodes.count, case .token(.ident(let c, _)) = nodes[i + 2] {
                        let call: Bool
                        if i + 3 < nodes.count, case .group(false, _) = nodes[i + 3] {
                            call = true
                        } else {
                            call = false
                        }
                        if !call { out.append((s, c)) }
                    }
                    i += 3
                    continue
                }
                if case .group(false, _)? = next {
                } else if i > 0, nodes[i - 1].token?.isKeyword("AS") == true {
                } else if quoted || !expressionKeywords.contains(s.uppercased()) {
                    out.append((nil, s))
                }
            case .group(_, let inner):
                if inner.first?.token?.isKeyword("SELECT") != true { out += columnRefs(inner) }
            default: break
            }
            i += 1
        }
        return out
    }

    /// The FROM item a column name refers to in `scope`, nil when it is the outer row's (or unknown).
    static func resolve(_ ref: (qualifier: String?, column: String), _ scope: [FromItem], _ columns: Columns) -> Int? {
        if let q = ref.qualifier { return scope.firstIndex { $0.alias == q } }
        return scope.firstIndex { columns($0.table)?.contains(ref.column) == true }
    }

    /// `lhs <op> rhs` of one AND/OR operand, each side without enclosing parentheses.
    static func comparison(_ part: [Node]) -> (lhs: [Node], rhs: [Node])? {
        let ops = part.indices.filter { i in
            if case .token(.op(let o)) = part[i] { return ["=", "<>", "!="].contains(o) || comparisonOps.contains(o) }
            return part[i].token?.isKeyword("IN") == true
        }
        guard ops.count == 1 else { return nil }
        return (stripped(Array(part[..<ops[0]])), stripped(Array(part[(ops[0] + 1)...])))
    }

    /// Comparisons inside subqueries whose two sides are the same column once names are
    /// resolved (`m.org_id = org_id` where the FROM item m has org_id).
    static func resolvedSelfComparisons(_ nodes: [Node], columns: Columns) -> [String] {
        var out: [String] = []
        subqueries(nodes) { sub, scope, _ in
            ownLists(sub) { list in
                for a in split(list, at: "AND") {
                    for o in split(a, at: "OR").map(predicate) {
                        guard let (l, r) = comparison(o), isColumnRef(l), isColumnRef(r) else { continue }
                        let lr = columnRefs(l)
                        let rr = columnRefs(r)
                        guard lr.count == 1, rr.count == 1, lr[0].column == rr[0].column,
                            let li = resolve(lr[0], scope, columns), li == resolve(rr[0], scope, columns)
                        else { continue }
                        out.append(PolicyExpression.Render.nodes(o))
                    }
                }
            }
        }
        return out
    }

    /// A predicate of a subquery that names a column the policy's table also has, written
    /// unqualified (so it is the subquery table's) or qualified with the subquery's table and
    /// compared with that same table, in a subquery that never refers to the policy's row:
    /// `members.team_id = team_id`, `projects.id::text = (storage.foldername(projects.name))[1]`.
    /// The comparison, the column it meant, and whether both sides are then the same column
    /// (always true) rather than two of the subquery's own (true only for rows that happen to match).
    static func shadowedColumns(
        _ nodes: [Node], table: String, outer: Set<String>, columns: Columns
    ) -> [(comparison: String, column: String, inner: String, alwaysTrue: Bool)] {
        var out: [(String, String, String, Bool)] = []
        subqueries(nodes) { sub, scope, top in
            guard mentionsNo(table, in: top),
                !scope.contains(where: { $0.table == table || $0.table.hasSuffix("." + table) })
            else { return }
            ownLists(sub) { list in
                for a in split(list, at: "AND") {
                    for o in split(a, at: "OR").map(predicate) {
                        guard let (l, r) = comparison(o), binding(o) == nil,
                            PolicyExpression.Render.nodes(l) != PolicyExpression.Render.nodes(r),
                            !PolicyExpression.isConstant(PolicyExpression.Render.nodes(l)),
                            !PolicyExpression.isConstant(PolicyExpression.Render.nodes(r))
                        else { continue }
                        let same: Bool = {
                            guard isColumnRef(l), isColumnRef(r), let a = columnRefs(l).first,
                                let b = columnRefs(r).first, a.column == b.column
                            else { return false }
                            return resolve(a, scope, columns).map { $0 == resolve(b, scope, columns) } ?? false
                        }()
                        for (side, other) in [(l, r), (r, l)] {
                            let otherItems = Set(columnRefs(other).compactMap { resolve($0, scope, columns) })
                            for ref in columnRefs(side) where outer.contains(ref.column) {
                                guard let i = resolve(ref, scope, columns),
                                    columns(scope[i].table)?.contains(ref.column) == true,
                                    ref.qualifier == nil || otherItems.contains(i)
                                else { continue }
                                out.append((PolicyExpression.Render.nodes(o), ref.column, scope[i].table, same))
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// True when no `table.` (other than `schema.table` naming the relation) appears in `nodes`.
    static func mentionsNo(_ table: String, in nodes: [Node]) -> Bool {
        let t = tokens(nodes)
        return !t.indices.contains { i in
            guard case .ident(let s, _) = t[i], s == table, i + 1 < t.count, t[i + 1] == .dot else { return false }
            return !(i > 0 && t[i - 1] == .dot)
        }
    }
}
