/// A function body read with the SQL lexer, well enough to tell whether it checks its caller
/// and whether a guard of it can be skipped by NULL.
struct FunctionBody {
    struct Word: Equatable {
        var kind: SQLToken.Kind
        var text: String
        /// Lower-cased for words, as written otherwise.
        var key: String
    }
    let words: [Word]

    init(_ body: String) {
        let scalars = Array(body.unicodeScalars)
        words = SQLLexer.tokens(scalars).filter { !$0.isTrivia }.map { t in
            let text = String(String.UnicodeScalarView(scalars[t.start..<t.end]))
            return Word(kind: t.kind, text: text, key: t.kind == .word ? text.lowercased() : text)
        }
    }

    func key(_ i: Int) -> String { i >= 0 && i < words.count ? words[i].key : "" }

    /// Keywords after which a condition starts, and those that end it.
    static let conditionStart: Set<String> = ["if", "elsif", "where", "when", "and", "or", "on", "having"]
    static let conditionEnd: Set<String> = [";", "then", "loop", "begin", "else", "values", "returning", "set"]

    /// What the body checks the caller with inside a condition (`auth.uid()`, a helper that
    /// does), or nil when it never does.
    func callerCheck(helpers: Set<String>, secretArguments: Set<String> = [], anywhere: Bool = false) -> String? {
        var inCondition = false
        for i in words.indices {
            let k = key(i)
            if Self.conditionStart.contains(k) { inCondition = true; continue }
            if Self.conditionEnd.contains(k) { inCondition = false; continue }
            guard inCondition || anywhere else { continue }
            if k == "auth", key(i + 1) == ".", ["uid", "jwt", "role"].contains(key(i + 2)), key(i + 3) == "(" {
                return "auth.\(key(i + 2))()"
            }
            if k == "current_setting", key(i + 1) == "(", words.indices.contains(i + 2), words[i + 2].kind == .string,
                words[i + 2].text.contains("request.jwt") || words[i + 2].text == "'role'"
            {
                return "current_setting(\(words[i + 2].text))"
            }
            // A lookup by a secret the caller must know (`where token = invite_token`).
            if secretArguments.contains(k), ["=", "<>", "!="].contains(key(i - 1)) || key(i + 1) == "=" {
                return "a lookup by its secret argument \(k)"
            }
            if words[i].kind == .word, key(i + 1) == "(", key(i - 1) != "function", helpers.contains(k) {
                return "\(k)(), which checks the caller"
            }
        }
        return nil
    }

    /// Guards `IF x <> c THEN RAISE`, `IF x != c`, `IF NOT (x = c)` whose x can be NULL (a
    /// variable filled by SELECT INTO or `:=` from a query, call or JSON lookup, or such an
    /// expression itself) and that neither test x for NULL nor run after `IF NOT FOUND`.
    func nullDefeatedGuards() -> [String] {
        var nullable = Set<String>()
        var out: [String] = []
        var i = 0
        while i < words.count {
            let k = key(i)
            // INTO STRICT raises when no row is found.
            if k == "into", words.indices.contains(i + 1), words[i + 1].kind == .word, key(i - 1) != "insert",
                key(i + 1) != "strict", !selectsAggregate(before: i)
            {
                var j = i + 1
                while words.indices.contains(j), words[j].kind == .word || key(j) == "," {
                    if words[j].kind == .word { nullable.insert(key(j)) }
                    j += 1
                }
            }
            if k == ":=", i > 0, words[i - 1].kind == .word {
                let rhs = statement(from: i + 1)
                if Self.canBeNull(rhs) { nullable.insert(key(i - 1)) } else { nullable.remove(key(i - 1)) }
            }
            if k == "if" || k == "elsif", let then = (i..<words.count).first(where: { key($0) == "then" }) {
                let cond = Array(words[(i + 1)..<then])
                if key(then + 1) == "raise", let x = Self.negatedEquality(cond),
                    x.count == 1 ? nullable.contains(x[0].key) && !clearedByNotFound(before: i) : Self.canBeNull(x),
                    !cond.contains(where: { $0.key == "null" || $0.key == "coalesce" || $0.key == "distinct" })
                {
                    out.append("if " + cond.map(\.text).joined(separator: " ") + " then raise")
                }
                i = then
            }
            i += 1
        }
        return out
    }

    /// `select count(*) into …` (or exists, coalesce): always one non-NULL value.
    func selectsAggregate(before into: Int) -> Bool {
        guard let select = (0..<into).last(where: { key($0) == "select" }) else { return false }
        return ["count", "exists", "coalesce"].contains(key(select + 1))
    }

    func statement(from: Int) -> [Word] {
        var j = from
        while j < words.count, key(j) != ";" { j += 1 }
        return Array(words[min(from, words.count)..<j])
    }

    /// True when `IF NOT FOUND THEN RAISE` comes before index `i` (a SELECT INTO that found no
    /// row stopped the function).
    func clearedByNotFound(before i: Int) -> Bool {
        (0..<i).contains { key($0) == "if" && key($0 + 1) == "not" && key($0 + 2) == "found" }
    }

    /// Who the API says the caller is (`auth.role()`, the `role` setting) is never NULL there.
    static let neverNull: Set<String> = ["coalesce", "current_setting", "current_user", "session_user", "count"]

    static func canBeNull(_ expr: [Word]) -> Bool {
        if expr.contains(where: { neverNull.contains($0.key) }) { return false }
        let callsAuthRole = expr.indices.contains { i in
            expr[i].key == "auth" && i + 2 < expr.count && expr[i + 2].key == "role"
        }
        if callsAuthRole { return false }
        return expr.contains { $0.key == "select" || $0.key == "->>" || $0.key == "->" || $0.key == "#>>" }
            || expr.indices.contains { i in expr[i].kind == .word && i + 1 < expr.count && expr[i + 1].key == "(" }
    }

    /// x of `x <> c`, `x != c` or `not (x = c)`, with c a constant.
    static func negatedEquality(_ cond: [Word]) -> [Word]? {
        var c = cond
        func strip() { while c.first?.key == "(" && c.last?.key == ")" { c = Array(c.dropFirst().dropLast()) } }
        strip()
        var ops: Set<String> = ["<>", "!="]
        if c.first?.key == "not" {
            c.removeFirst()
            strip()
            ops = ["="]
        }
        guard let opIndex = c.firstIndex(where: { ops.contains($0.key) }), opIndex > 0 else { return nil }
        let lhs = Array(c[..<opIndex]), rhs = Array(c[(opIndex + 1)...])
        guard rhs.count == 1 || (rhs.count == 3 && rhs[1].key == "::"),
            rhs[0].kind == .string || rhs[0].kind == .number
        else { return nil }
        if lhs.contains(where: { ["and", "or"].contains($0.key) }) { return nil }
        return lhs
    }
}
