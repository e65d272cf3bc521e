// Whether a storage policy ties the object (its name, owner) to the caller.
extension PolicyExpression.Scan {
    /// storage.objects columns that say whose an object is or where it lies.
    static let objectColumns: Set<String> = ["name", "owner", "owner_id", "path_tokens"]

    /// Built-in functions over the name: they test its shape, not who may write it.
    static let nameFunctions: Set<String> = [
        "storage.foldername", "storage.filename", "storage.extension", "lower", "upper", "coalesce",
        "nullif", "array", "any", "all", "exists", "starts_with", "left", "right", "substring", "substr",
        "split_part", "replace", "concat", "length", "char_length", "position", "strpos", "regexp_match",
        "regexp_replace", "regexp_split_to_array", "string_to_array", "array_length", "cardinality", "trim",
        "btrim", "ltrim", "rtrim", "reverse", "md5",
    ]

    /// Names the policy row's name/owner: unqualified at the top, `objects.name` in subqueries.
    static func mentionsObject(_ nodes: [PolicyExpression.Node]) -> Bool {
        let t = tokens(nodes)
        return t.indices.contains { i in
            guard case .ident(let s, _) = t[i], objectColumns.contains(s) else { return false }
            if i > 0, t[i - 1] == .cast { return false }  // the type `name`
            guard i > 0, t[i - 1] == .dot else { return true }
            return i > 1 && t[i - 2] == .ident("objects", quoted: false)
        }
    }

    /// Calls a function of the project with the object's name or owner as an argument:
    /// `private.is_member(((storage.foldername(name))[1])::uuid)`.
    static func hasObjectHelperCall(_ nodes: [PolicyExpression.Node]) -> Bool {
        for (i, n) in nodes.enumerated() {
            if case .group(_, let inner) = n {
                if hasObjectHelperCall(inner) { return true }
                continue
            }
            guard case .token(.ident(let s, false)) = n, i + 1 < nodes.count,
                case .group(false, let args) = nodes[i + 1], !args.isEmpty
            else { continue }
            var name = s.lowercased()
            if i > 1, nodes[i - 1].token == .dot, case .token(.ident(let schema, _)) = nodes[i - 2] {
                name = schema.lowercased() + "." + name
            }
            if i > 0, nodes[i - 1].token == .dot, name == s.lowercased() { continue }
            guard !name.hasPrefix("auth."), !nameFunctions.contains(name), !expressionKeywords.contains(s.uppercased())
            else { continue }
            if mentionsObject(args) { return true }
        }
        return false
    }

    /// Some AND part both checks the caller and names the object (`owner = auth.uid()`, an EXISTS
    /// over memberships of the object's folder); an identity test alone lets any caller write anywhere.
    static func tiesObjectToCaller(_ nodes: [PolicyExpression.Node]) -> Bool {
        conjuncts(nodes).contains { hasIdentity($0) && mentionsObject($0) }
    }
}

extension PolicyExpression {
    /// Only constants and casts: `'support'`, `'2'::text`, `true`.
    static func isConstant(_ text: String) -> Bool {
        let t = Scan.tokens(Parser.parse(text))
        return !t.isEmpty
            && t.indices.allSatisfy { i in
                switch t[i] {
                case .string, .number, .cast: return true
                case .ident(let s, false):
                    return (i > 0 && t[i - 1] == .cast) || ["TRUE", "FALSE", "NULL"].contains(s.uppercased())
                default: return false
                }
            }
    }
}
