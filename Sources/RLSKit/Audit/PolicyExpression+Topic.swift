// What a Realtime Authorization policy (on realtime.messages) says about the channel topic.
extension PolicyExpression.Scan {
    /// `realtime.topic()`, `messages.topic`, or a bare `topic` outside subqueries (inside one,
    /// a bare name is the subquery's own column; the server qualifies outer ones).
    static func mentionsTopic(_ nodes: [Node], outer: Bool = true) -> Bool {
        for (i, n) in nodes.enumerated() {
            switch n {
            case .token(.ident(let s, _)) where s == "topic":
                let before = i > 0 ? nodes[i - 1].token : nil
                let qualifier: String? =
                    before == .dot && i > 1 ? nodes[i - 2].token.map(PolicyExpression.Render.identText) : nil
                if qualifier == "realtime" || qualifier == "messages" { return true }
                let isAlias = before?.isKeyword("AS") == true
                let isQualifier = i + 1 < nodes.count && nodes[i + 1].token == .dot
                if outer, qualifier == nil, !isAlias, !isQualifier { return true }
            case .group(_, let inner):
                let isSubquery = inner.first?.token?.isKeyword("SELECT") == true && hasFrom(inner)
                if mentionsTopic(inner, outer: outer && !isSubquery) { return true }
            default: continue
            }
        }
        return false
    }

    static func hasCall(_ nodes: [Node]) -> Bool {
        nodes.indices.contains { i in
            if case .token(.ident) = nodes[i], i + 1 < nodes.count, case .group(false, _) = nodes[i + 1] {
                return true
            }
            if case .group(_, let inner) = nodes[i] { return hasCall(inner) }
            return false
        }
    }

    /// Some comparison or subquery ties the topic to the caller (their id or a claim, a set of
    /// topics a function computes, a subquery over the caller's rows) or names fixed topics.
    static func topicIsChecked(_ nodes: [Node]) -> Bool {
        var found = false
        lists(nodes) { list in
            if found { return }
            if list.first?.token?.isKeyword("SELECT") == true, hasFrom(list), mentionsTopic(list, outer: false),
                hasIdentity(list)
            {
                found = true
                return
            }
            operands(list) { part in
                if !found, topicComparison(part) { found = true }
            }
        }
        return found
    }

    static func topicComparison(_ part: [Node]) -> Bool {
        let ops = part.indices.filter { i in
            if case .token(.op(let o)) = part[i] { return comparisonOps.contains(o) }
            return part[i].token?.isKeyword("IN") == true
        }
        guard ops.count == 1 else { return false }
        let sides = [Array(part[..<ops[0]]), Array(part[(ops[0] + 1)...])]
        guard let t = sides.firstIndex(where: { mentionsTopic($0) }) else { return false }
        let raw = sides[1 - t]
        let other = stripped(raw)
        if mentionsTopic(other) { return false }
        if hasIdentity(other) { return true }
        let exact = part[ops[0]].token == .op("=") || part[ops[0]].token?.isKeyword("IN") == true
        let literal = tokens(other).contains { if case .string = $0 { true } else { false } }
        if exact, literal, !hasCall(other), !hasColumnRef(other) { return true }
        // A set computed for the caller: `in (select my_topics())`.
        return raw.contains { n in
            guard case .group(false, let inner) = n, inner.first?.token?.isKeyword("SELECT") == true else {
                return false
            }
            return !hasFrom(inner) && hasCall(inner)
        }
    }

    /// String constants compared with column `column` (`extension = 'broadcast'`, `bucket_id = ANY (…)`).
    static func strings(comparedWith column: String, in nodes: [Node]) -> Set<String> {
        var out = Set<String>()
        operands(nodes) { part in
            guard part.contains(where: { $0.token == .ident(column, quoted: false) }),
                part.contains(where: { $0.token == .op("=") || $0.token?.isKeyword("IN") == true })
            else { return }
            for case .string(let s) in tokens(part) { out.insert(s) }
        }
        return out
    }
}
