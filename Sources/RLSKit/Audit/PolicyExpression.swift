/// A policy expression as the server deparses it (`pg_get_expr`), read just well enough to
/// answer the lints' questions: which auth functions it calls and whether they are wrapped in
/// `( SELECT … )`, what it compares with the caller's identity, its top-level conjuncts.
///
/// Normal form: casts dropped, redundant parentheses dropped, `( SELECT auth.uid() AS uid)`
/// read as `auth.uid()`, single spaces. So `((select auth.uid())::text = owner_id)` and
/// `(owner_id = auth.uid()::text)` both compare `owner_id` with the caller.
public struct PolicyExpression: Sendable, Equatable {
    public let text: String
    /// The normal form of the whole expression.
    public let canonical: String
    /// Calls of auth.uid/jwt/role/email and current_setting; `wrapped` when inside a SELECT.
    public let authCalls: [AuthCall]
    /// Things compared with the caller's identity (`owner`, `storage.foldername(name)[1]`).
    public let bindings: Set<String>
    /// Top-level AND parts, in normal form.
    public let conjuncts: [String]
    /// Has an `auth.uid() IS NULL OR …` disjunct: true for every row when there is no session.
    public let hasIdentityIsNullDisjunct: Bool
    public let referencesUserMetadata: Bool
    /// Mentions who the caller is (uid, email, or any JWT claim), not just their role.
    public let hasIdentity: Bool
    /// Every string constant, e.g. bucket ids.
    public let stringLiterals: Set<String>

    public struct AuthCall: Sendable, Equatable {
        public var function: String
        public var wrapped: Bool
        public init(function: String, wrapped: Bool) { self.function = function; self.wrapped = wrapped }
    }

    public init(_ text: String) {
        self.text = text
        let nodes = Parser.parse(text)
        hasIdentity = Scan.hasIdentity(nodes)
        canonical = Render.nodes(nodes)
        var calls: [AuthCall] = []
        Scan.authCalls(nodes, insideSelect: false, into: &calls)
        authCalls = calls
        var b = Set<String>()
        var isNullOr = false
        Scan.lists(nodes) { list in
            if let binding = Scan.binding(list) { b.insert(binding) }
            if Scan.identityIsNullDisjunct(list) { isNullOr = true }
        }
        bindings = b
        hasIdentityIsNullDisjunct = isNullOr
        conjuncts = Scan.conjuncts(nodes).map { part in
            var p = part
            while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
            return Render.nodes(p)
        }
        let tokens = Scan.tokens(nodes)
        stringLiterals = Set(tokens.compactMap { if case .string(let s) = $0 { s } else { nil } })
        referencesUserMetadata = tokens.contains {
            switch $0 {
            case .string(let s): return s == "user_metadata"
            case .ident(let s, _): return s.lowercased() == "raw_user_meta_data"
            default: return false
            }
        }
    }

    public var isTrue: Bool { canonical == "true" || canonical == "TRUE" }

    public static func == (a: PolicyExpression, b: PolicyExpression) -> Bool { a.text == b.text }
}

enum Token: Equatable, Sendable {
    case ident(String, quoted: Bool)
    case string(String)
    case number(String)
    case op(String)
    case comma, dot, cast

    func isKeyword(_ k: String) -> Bool {
        if case .ident(let s, false) = self { return s.uppercased() == k }
        return false
    }
}

indirect enum Node: Sendable {
    case token(Token)
    /// `(` or `[` with what is inside.
    case group(bracket: Bool, [Node])

    var token: Token? { if case .token(let t) = self { t } else { nil } }
}

enum Parser {
    static func parse(_ text: String) -> [Node] {
        var stack: [(bracket: Bool, nodes: [Node])] = [(false, [])]
        let u = Array(text.utf8)
        var i = 0
        func push(_ t: Token) { stack[stack.count - 1].nodes.append(.token(t)) }
        func isIdentStart(_ c: UInt8) -> Bool { c == 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128 }
        func isIdent(_ c: UInt8) -> Bool { isIdentStart(c) || (c >= 48 && c <= 57) || c == 36 }
        let opChars = Set("+-*/<>=~!@#%^&|`?".utf8)
        while i < u.count {
            let c = u[i]
            switch c {
            case 32, 9, 10, 13: i += 1
            case UInt8(ascii: "("), UInt8(ascii: "["):
                stack.append((c == UInt8(ascii: "["), []))
                i += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"):
                if stack.count > 1 {
                    let g = stack.removeLast()
                    stack[stack.count - 1].nodes.append(.group(bracket: g.bracket, g.nodes))
                }
                i += 1
            case UInt8(ascii: ","): push(.comma); i += 1
            case UInt8(ascii: "."): push(.dot); i += 1
            case UInt8(ascii: ":") where i + 1 < u.count && u[i + 1] == UInt8(ascii: ":"): push(.cast); i += 2
            case UInt8(ascii: "'"):
                let (s, next) = quoted(u, from: i, quote: UInt8(ascii: "'"), backslashes: false)
                push(.string(s)); i = next
            case UInt8(ascii: "\""):
                let (s, next) = quoted(u, from: i, quote: UInt8(ascii: "\""), backslashes: false)
                push(.ident(s, quoted: true)); i = next
            case UInt8(ascii: "E") where i + 1 < u.count && u[i + 1] == UInt8(ascii: "'"):
                let (s, next) = quoted(u, from: i + 1, quote: UInt8(ascii: "'"), backslashes: true)
                push(.string(s)); i = next
            case 48...57:
                var j = i
                while j < u.count, (u[j] >= 48 && u[j] <= 57) || u[j] == UInt8(ascii: ".") || u[j] == UInt8(ascii: "e") { j += 1 }
                push(.number(String(decoding: u[i..<j], as: UTF8.self))); i = j
            default:
                if isIdentStart(c) {
                    var j = i
                    while j < u.count, isIdent(u[j]) { j += 1 }
                    push(.ident(String(decoding: u[i..<j], as: UTF8.self), quoted: false)); i = j
                } else if opChars.contains(c) {
                    var j = i
                    while j < u.count, opChars.contains(u[j]) { j += 1 }
                    push(.op(String(decoding: u[i..<j], as: UTF8.self))); i = j
                } else {
                    push(.op(String(decoding: [c], as: UTF8.self))); i += 1
                }
            }
        }
        while stack.count > 1 {
            let g = stack.removeLast()
            stack[stack.count - 1].nodes.append(.group(bracket: g.bracket, g.nodes))
        }
        return stack[0].nodes
    }

    /// A quoted string or identifier starting at `from` (the opening quote); doubled quotes
    /// (and, for E'' strings, backslashes) escape.
    static func quoted(_ u: [UInt8], from: Int, quote: UInt8, backslashes: Bool) -> (String, Int) {
        var bytes: [UInt8] = []
        var j = from + 1
        while j < u.count {
            if backslashes, u[j] == UInt8(ascii: "\\"), j + 1 < u.count { bytes.append(u[j + 1]); j += 2; continue }
            if u[j] == quote {
                if j + 1 < u.count, u[j + 1] == quote { bytes.append(quote); j += 2; continue }
                return (String(decoding: bytes, as: UTF8.self), j + 1)
            }
            bytes.append(u[j]); j += 1
        }
        return (String(decoding: bytes, as: UTF8.self), j)
    }
}

enum Render {
    static let typeWords: Set<String> = ["varying", "with", "without", "time", "zone", "precision"]
    static let operatorKeywords: Set<String> = ["AND", "OR", "NOT", "IS", "IN", "LIKE", "ILIKE", "SIMILAR", "BETWEEN",
                                                "CASE", "SELECT", "EXISTS", "ANY", "ALL", "AS", "WHEN", "THEN", "ELSE", "END"]

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
                case .ident(let s, let q): emit(q ? "\"\(s.replacingOccurrences(of: "\"", with: "\"\""))\"" : s, glue: false)
                case .string(let s): emit("'\(s.replacingOccurrences(of: "'", with: "''"))'", glue: false)
                case .number(let s): emit(s, glue: false)
                case .op(let s): emit(s, glue: false)
                case .comma: emit(",", glue: true)
                case .dot: emit(".", glue: true)
                case .cast: break
                }
                if case .ident(_, let q) = t { previousWasName = q || !operatorKeywords.contains(identText(t).uppercased()) } else { previousWasName = false }
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
        while j < nodes.count, case .token(.ident(let w, false)) = nodes[j], typeWords.contains(w.lowercased()) { j += 1 }
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
                   case .token(.ident(let f, false)) = nodes[i + 2], authFunctions.contains(f), case .group(false, _) = nodes[i + 3] {
                    calls.append(.init(function: "auth.\(f)", wrapped: insideSelect))
                } else if s == "current_setting", case .group(false, _)? = next,
                          i == 0 || nodes[i - 1].token != .dot {
                    calls.append(.init(function: "current_setting", wrapped: insideSelect))
                }
            case .group(_, let inner):
                let isSelect = inner.first?.token?.isKeyword("SELECT") ?? false
                authCalls(inner, insideSelect: insideSelect || isSelect, into: &calls)
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
                if i + 2 < nodes.count, case .token(.dot) = nodes[i + 1], case .token(.ident(let f, false)) = nodes[i + 2],
                   identityFunctions.contains(f) { return true }
            case .token(.ident("current_setting", false)):
                if i + 1 < nodes.count, case .group(false, let args) = nodes[i + 1],
                   case .token(.string(let name))? = args.first, name.hasPrefix("request.jwt") { return true }
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
        if list.contains(where: { $0.token?.isKeyword("AND") == true || $0.token?.isKeyword("OR") == true }) { return nil }
        let ops = list.indices.filter { i in
            if case .token(.op(let o)) = list[i] { return comparisonOps.contains(o) }
            return list[i].token?.isKeyword("IN") == true
        }
        guard ops.count == 1 else { return nil }
        let lhs = Array(list[..<ops[0]]), rhs = Array(list[(ops[0] + 1)...])
        let l = hasIdentity(lhs), r = hasIdentity(rhs)
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
            guard p.count >= 3, p[p.count - 1].token?.isKeyword("NULL") == true, p[p.count - 2].token?.isKeyword("IS") == true else { return false }
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
