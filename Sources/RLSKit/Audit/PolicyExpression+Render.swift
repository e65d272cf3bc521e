// The normal form of a policy expression (see PolicyExpression).
extension PolicyExpression {
    enum Render {
        static let typeWords: Set<String> = ["varying", "with", "without", "time", "zone", "precision"]
        static let operatorKeywords: Set<String> = [
            "AND", "OR", "NOT", "IS", "IN", "LIKE", "ILIKE", "SIMILAR", "BETWEEN",
            "CASE", "SELECT", "EXISTS", "ANY", "ALL", "AS", "WHEN", "THEN", "ELSE", "END",
        ]

        /// The normal form of a node list.
        static func nodes(_ nodes: [Node]) -> String {
            var out = ""
            var i = 0
            var previousWasName = false
            func emit(_ s: String, glue: Bool) {
                if !glue, let last = out.last, last != "(", last != "[", last != "." { out += " " }
                out += s
            }
            while i < nodes.count {
                switch nodes[i] {
                case .token(.cast):
                    i = skipType(nodes, after: i)
                    previousWasName = true
                    continue
                case .token(let t):
                    switch t {
                    case .ident(let s, let q):
                        emit(q ? "\"\(s.replacingOccurrences(of: "\"", with: "\"\""))\"" : s, glue: false)
                    case .string(let s): emit("'\(s.replacingOccurrences(of: "'", with: "''"))'", glue: false)
                    case .number(let s): emit(s, glue: false)
                    case .op(let s): emit(s, glue: false)
                    case .comma: emit(",", glue: true)
                    case .dot: emit(".", glue: true)
                    case .cast: break
                    }
                    if case .ident(_, let q) = t {
                        previousWasName = q || !operatorKeywords.contains(identText(t).uppercased())
                    } else {
                        previousWasName = false
                    }
                case .group(true, let inner):
                    emit("[" + Self.nodes(inner) + "]", glue: true)
                    previousWasName = true
                case .group(false, let inner):
                    if previousWasName {
                        emit("(" + Self.nodes(inner) + ")", glue: true)
                    } else if let call = selectWrappedCall(inner) {
                        emit(call, glue: false)
                    } else if isSimple(inner) {
                        emit(Self.nodes(inner), glue: false)
                    } else {
                        emit("(" + Self.nodes(inner) + ")", glue: false)
                    }
                    previousWasName = true
                }
                i += 1
            }
            return out
        }

        static func identText(_ t: Token) -> String { if case .ident(let s, _) = t { s } else { "" } }

        /// Index after a cast's type name (`::text`, `::character varying(255)[]`, `::public.t`).
        static func skipType(_ nodes: [Node], after castIndex: Int) -> Int {
            var j = castIndex + 1
            guard j < nodes.count, case .token(.ident) = nodes[j] else { return j }
            j += 1
            while j + 1 < nodes.count, case .token(.dot) = nodes[j], case .token(.ident) = nodes[j + 1] { j += 2 }
            while j < nodes.count, case .token(.ident(let w, false)) = nodes[j], typeWords.contains(w.lowercased()) {
                j += 1
            }
            if j < nodes.count, case .group(false, _) = nodes[j] { j += 1 }
            while j < nodes.count, case .group(true, let inner) = nodes[j], inner.isEmpty { j += 1 }
            return j
        }

        /// `SELECT <x> AS <alias>` where x is one auth call: the call itself.
        static func selectWrappedCall(_ inner: [Node]) -> String? {
            guard let first = inner.first?.token, first.isKeyword("SELECT") else { return nil }
            var body = Array(inner.dropFirst())
            if body.count >= 2, body[body.count - 2].token?.isKeyword("AS") == true { body.removeLast(2) }
            let text = nodes(body)
            return Scan.isSingleAuthCall(text) ? text : nil
        }

        /// No operator or keyword at the top level: parentheses around it change nothing.
        static func isSimple(_ inner: [Node]) -> Bool {
            for n in inner {
                switch n {
                case .token(.op), .token(.comma): return false
                case .token(.ident(let s, false)) where operatorKeywords.contains(s.uppercased()): return false
                default: continue
                }
            }
            return !inner.isEmpty
        }
    }
}
