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

    /// True when the body raises on NOT FOUND or when the variable it returns is NULL: it never
    /// returns the NULL a failed lookup would give.
    var raisesOnNull: Bool {
        let returned = Set(words.indices.filter { key($0) == "return" }.map { key($0 + 1) })
        return words.indices.contains { i in
            guard key(i) == "if" || key(i) == "elsif",
                let then = (i..<words.count).first(where: { key($0) == "then" }), key(then + 1) == "raise"
            else { return false }
            let testsReturned =
                returned.contains(key(i + 1))
                && ((i + 1)..<then).contains { key($0) == "is" && key($0 + 1) == "null" }
            return testsReturned || (key(i + 1) == "not" && key(i + 2) == "found")
        }
    }

    /// Guards `IF x <> c THEN RAISE`, `IF x != c`, `IF NOT (x = c)` whose x can be NULL (a
    /// variable filled by SELECT INTO or `:=` from a query, call or JSON lookup, or such an
    /// expression itself) and that neither test x for NULL nor run after `IF NOT FOUND`.
    /// `nonNullCalls` name functions that raise rather than return NULL.
    /// A guard on the shape of `arguments` only (`jsonb_typeof(p_items) <> 'array'`) guards no access.
    func nullDefeatedGuards(nonNullCalls: Set<String> = [], arguments: Set<String> = []) -> [String] {
        var nullable = Set<String>()
        var out: [String] = []
        var i = 0
        while i < words.count {
            let k = key(i)
            // INTO STRICT raises when no row is found.
            if k == "into", words.indices.contains(i + 1), words[i + 1].kind == .word, key(i - 1) != "insert",
                key(i + 1) != "strict", !selectsAggregate(before: i),
                !callsAny(nonNullCalls, in: statementRange(around: i))
            {
                var j = i + 1
                while words.indices.contains(j), words[j].kind == .word || key(j) == "," {
                    if words[j].kind == .word { nullable.insert(key(j)) }
                    j += 1
                }
            }
            if let v = assignmentTarget(at: i) {
                let rhs = statement(from: i + 1)
                if Self.canBeNull(rhs, nonNullCalls: nonNullCalls), !Self.readsOnly(rhs, arguments) {
                    nullable.insert(v)
                } else {
                    nullable.remove(v)
                }
            }
            // `end if` closes an IF; its condition is not what follows.
            if k == "if" || k == "elsif", key(i - 1) != "end",
                let then = (i..<words.count).first(where: { key($0) == "then" })
            {
                let cond = Array(words[(i + 1)..<then])
                // `if x is null then raise` clears x for the guards after it.
                if key(then + 1) == "raise", cond.count == 3, cond[1].key == "is", cond[2].key == "null" {
                    nullable.remove(cond[0].key)
                }
                let subjects = key(then + 1) == "raise" ? Self.negatedSubjects(cond) : []
                if subjects.contains(where: { x in
                    x.count == 1
                        ? nullable.contains(x[0].key) && !clearedByNotFound(before: i)
                        : Self.canBeNull(x, nonNullCalls: nonNullCalls) && !Self.readsOnly(x, arguments)
                }),
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

    /// The statement (between semicolons) that word `i` is in.
    func statementRange(around i: Int) -> Range<Int> {
        let start = (0..<i).last(where: { key($0) == ";" }).map { $0 + 1 } ?? 0
        let end = (i..<words.count).first(where: { key($0) == ";" }) ?? words.count
        return start..<end
    }

    func callsAny(_ names: Set<String>, in range: Range<Int>) -> Bool {
        range.contains { words[$0].kind == .word && key($0 + 1) == "(" && names.contains(key($0)) }
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

    static func canBeNull(_ expr: [Word], nonNullCalls: Set<String> = []) -> Bool {
        if expr.contains(where: { neverNull.contains($0.key) || nonNullCalls.contains($0.key) }) { return false }
        let callsAuthRole = expr.indices.contains { i in
            expr[i].key == "auth" && i + 2 < expr.count && expr[i + 2].key == "role"
        }
        if callsAuthRole { return false }
        return expr.contains { $0.key == "select" || $0.key == "->>" || $0.key == "->" || $0.key == "#>>" }
            || expr.indices.contains { i in expr[i].kind == .word && i + 1 < expr.count && expr[i + 1].key == "(" }
    }

    /// Functions of their arguments alone: applied to arguments, they look nothing up.
    static let argumentShape: Set<String> = [
        "jsonb_typeof", "json_typeof", "pg_typeof", "length", "char_length", "octet_length", "array_length",
        "cardinality", "jsonb_array_length", "json_array_length", "lower", "upper", "trim", "btrim", "ltrim", "rtrim",
        "array_ndims", "abs", "sign", "left", "right", "substring", "substr", "split_part",
    ]

    /// True when `expr` reads nothing but `arguments` and constants, through `argumentShape`
    /// functions, casts and JSON operators: it tests what the caller passed, not who calls.
    static func readsOnly(_ expr: [Word], _ arguments: Set<String>) -> Bool {
        var usesArgument = false
        for i in expr.indices {
            let w = expr[i]
            guard w.kind == .word else { continue }
            if i > 0, expr[i - 1].key == "::" { continue }
            if i + 1 < expr.count, expr[i + 1].key == "(" {
                guard argumentShape.contains(w.key), i == 0 || expr[i - 1].key != "." else { return false }
                continue
            }
            guard arguments.contains(w.key), i == 0 || expr[i - 1].key != "." else { return false }
            usesArgument = true
        }
        return usesArgument
    }
}
