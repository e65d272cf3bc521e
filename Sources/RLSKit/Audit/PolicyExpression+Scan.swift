import Foundation

// What the lints ask of a policy expression: auth calls, bindings, conjuncts.
extension PolicyExpression {
    enum Scan {
        static let authFunctions: Set<String> = ["uid", "jwt", "role", "email"]
        static let comparisonOps: Set<String> = ["=", "~~", "~~*", "^@"]

        static func isSingleAuthCall(_ text: String) -> Bool {
            for f in authFunctions where text == "auth.\(f)()" { return true }
            return text.hasPrefix("current_setting(") && text.hasSuffix(")") && !text.dropFirst(16).contains("(")
        }

        static func authCalls(_ nodes: [Node], insideSelect: Bool, into calls: inout [PolicyExpression.AuthCall]) {
            for (i, n) in nodes.enumerated() {
                switch n {
                case .token(.ident(let s, false)):
                    let next = i + 1 < nodes.count ? nodes[i + 1] : nil
                    if s == "auth", i + 3 < nodes.count, case .token(.dot) = nodes[i + 1],
                        case .token(.ident(let f, false)) = nodes[i + 2], authFunctions.contains(f),
                        case .group(false, _) = nodes[i + 3]
                    {
                        calls.append(.init(function: "auth.\(f)", wrapped: insideSelect))
                    } else if s == "current_setting", case .group(false, _)? = next,
                        i == 0 || nodes[i - 1].token != .dot
                    {
                        calls.append(.init(function: "current_setting", wrapped: insideSelect))
                    }
                case .group(_, let inner):
                    // `(select auth.uid())` is evaluated once; a subquery with FROM evaluates
                    // its bare calls for every row it reads.
                    if inner.first?.token?.isKeyword("SELECT") ?? false {
                        authCalls(inner, insideSelect: !hasFrom(inner), into: &calls)
                    } else {
                        authCalls(inner, insideSelect: insideSelect, into: &calls)
                    }
                default: continue
                }
            }
        }

        static let identityFunctions: Set<String> = ["uid", "jwt", "email"]

        /// Calls auth.uid(), auth.jwt(), auth.email() or reads a request.jwt setting, at any depth.
        static func hasIdentity(_ nodes: [Node]) -> Bool {
            for (i, n) in nodes.enumerated() {
                switch n {
                case .token(.ident("auth", false)):
                    if i + 2 < nodes.count, case .token(.dot) = nodes[i + 1],
                        case .token(.ident(let f, false)) = nodes[i + 2],
                        identityFunctions.contains(f)
                    {
                        return true
                    }
                case .token(.ident("current_setting", false)):
                    if i + 1 < nodes.count, case .group(false, let args) = nodes[i + 1],
                        case .token(.string(let name))? = args.first, name.hasPrefix("request.jwt")
                    {
                        return true
                    }
                case .group(_, let inner):
                    if hasIdentity(inner) { return true }
                default: continue
                }
            }
            return false
        }

        /// Calls `body` with the top-level list and every group's contents.
        static func lists(_ nodes: [Node], _ body: ([Node]) -> Void) {
            body(nodes)
            for n in nodes { if case .group(false, let inner) = n { lists(inner, body) } }
        }

        /// The same, without going into subqueries: comparisons about the policy's own row.
        static func rowLists(_ nodes: [Node], _ body: ([Node]) -> Void) {
            body(nodes)
            for n in nodes {
                if case .group(false, let inner) = n, inner.first?.token?.isKeyword("SELECT") != true {
                    rowLists(inner, body)
                }
            }
        }

        /// Calls a function other than auth.*/current_setting with arguments: a helper whose body
        /// the expression does not show (`has_org_role(organization_id, 'admin')`).
        static func callsHelper(_ canonical: String) -> Bool {
            let ns = canonical as NSString
            let re = try! NSRegularExpression(pattern: #"(?<![\w.])((?:\w+\.)?\w+)\((?!\))"#)
            return re.matches(in: canonical, range: NSRange(location: 0, length: ns.length)).contains { m in
                let name = ns.substring(with: m.range(at: 1)).lowercased()
                return !name.hasPrefix("auth.")
                    && ![
                        "current_setting", "coalesce", "nullif", "exists", "any", "lower",
                        "upper", "array", "storage.foldername", "storage.filename", "storage.extension",
                    ].contains(name)
            }
        }

        static func tokens(_ nodes: [Node]) -> [Token] {
            nodes.flatMap { n -> [Token] in
                switch n {
                case .token(let t): [t]
                case .group(_, let inner): tokens(inner)
                }
            }
        }

        /// Splits a list at top-level keyword `k` (AND / OR).
        static func split(_ list: [Node], at k: String) -> [[Node]] {
            var parts: [[Node]] = [[]]
            for n in list {
                if n.token?.isKeyword(k) == true { parts.append([]) } else { parts[parts.count - 1].append(n) }
            }
            return parts
        }

        /// `x = <identity>` (or LIKE, IN): the normal form of x.
        static func binding(_ list: [Node]) -> String? {
            if list.contains(where: { $0.token?.isKeyword("AND") == true || $0.token?.isKeyword("OR") == true }) {
                return nil
            }
            let ops = list.indices.filter { i in
                if case .token(.op(let o)) = list[i] { return comparisonOps.contains(o) }
                return list[i].token?.isKeyword("IN") == true
            }
            guard ops.count == 1 else { return nil }
            let lhs = Array(list[..<ops[0]])
            let rhs = Array(list[(ops[0] + 1)...])
            let l = hasIdentity(lhs)
            let r = hasIdentity(rhs)
            guard l != r else { return nil }
            return Render.nodes(l ? rhs : lhs)
        }

        /// A top-level OR with an operand `<identity> IS NULL`.
        static func identityIsNullDisjunct(_ list: [Node]) -> Bool {
            let parts = split(list, at: "OR")
            guard parts.count > 1 else { return false }
            return parts.contains { part in
                var p = part
                while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
                guard p.count >= 3, p[p.count - 1].token?.isKeyword("NULL") == true,
                    p[p.count - 2].token?.isKeyword("IS") == true
                else { return false }
                return hasIdentity(Array(p.dropLast(2)))
            }
        }

        /// Top-level AND parts, nested ANDs flattened.
        static func conjuncts(_ nodes: [Node]) -> [[Node]] {
            var list = nodes
            while list.count == 1, case .group(false, let inner) = list[0] { list = inner }
            let parts = split(list, at: "AND")
            if parts.count == 1 { return [list] }
            return parts.flatMap { part -> [[Node]] in
                var p = part
                while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
                let sub = split(p, at: "AND")
                if sub.count > 1, !p.contains(where: { $0.token?.isKeyword("OR") == true }) { return conjuncts(p) }
                return [part]
            }
        }
    }
}
