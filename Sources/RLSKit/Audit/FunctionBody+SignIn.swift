// Guards that only ask whether a user is signed in, and bodies that scope all they do to that user.
extension FunctionBody {
    /// Where a PL/pgSQL DECLARE section ends (its `begin`); 0 when the body has none.
    var declareEnd: Int {
        guard key(0) == "declare" else { return 0 }
        return words.indices.first { key($0) == "begin" } ?? 0
    }

    /// The variable that `:=` at `i` assigns: the word before it, or in DECLARE
    /// (`v_uid uuid := auth.uid()`, `v uuid default …`) the name the declaration starts with.
    func assignmentTarget(at i: Int) -> String? {
        guard [":=", "=", "default"].contains(key(i)), i > 0 else { return nil }
        if i < declareEnd {
            var start = statementRange(around: i).lowerBound
            if key(start) == "declare" { start += 1 }
            guard start < i, words[start].kind == .word,
                !(start..<i).contains(where: { [":=", "=", "default"].contains(key($0)) })
            else { return nil }
            return key(start)
        }
        return key(i) == ":=" && words[i - 1].kind == .word ? key(i - 1) : nil
    }

    /// Which of the caller's identity `expr` is, alone: "uid" for `auth.uid()`, "role" for
    /// `(select auth.role())`, or a variable's kind.
    func identity(_ expr: [Word], variables: [String: String]) -> String? {
        var e = Self.stripped(expr)
        if e.first?.key == "select" { e = Self.stripped(Array(e.dropFirst())) }
        if e.count == 1 { return variables[e[0].key] }
        guard e.count == 5, e[0].key == "auth", e[1].key == ".", ["uid", "role"].contains(e[2].key),
            e[3].key == "(", e[4].key == ")"
        else { return nil }
        return e[2].key
    }

    /// Variables set, by `:=`, DEFAULT or `select … into`, to the caller's identity alone.
    var identityVariables: [String: String] {
        var out: [String: String] = [:]
        for i in words.indices {
            if let v = assignmentTarget(at: i) {
                out[v] = identity(statement(from: i + 1), variables: out)
            }
            if key(i) == "into", key(i - 1) != "insert", let select = (0..<i).last(where: { key($0) == "select" }),
                words.indices.contains(i + 1)
            {
                out[key(i + 1)] = identity(Array(words[(select + 1)..<i]), variables: out)
            }
        }
        return out
    }

    /// True when `cond` holds for anon whatever the arguments: it tests that the caller's id is
    /// NULL (`x is null`, `not x is not null`) or that the role is not `authenticated`; under OR,
    /// one such part is enough.
    func holdsForAnon(_ cond: [Word], variables: [String: String]) -> Bool {
        let parts = Self.topLevel(Self.stripped(cond), split: "or")
        if parts.count > 1 { return parts.contains { holdsForAnon($0, variables: variables) } }
        var c = Self.stripped(cond)
        var negated = false
        if c.first?.key == "not" {
            negated = true
            c = Self.stripped(Array(c.dropFirst()))
        }
        let keys = c.map(\.key)
        if keys.suffix(3) == ["is", "not", "null"], negated {
            return identity(Array(c.dropLast(3)), variables: variables) == "uid"
        }
        if keys.suffix(2) == ["is", "null"], !negated {
            return identity(Array(c.dropLast(2)), variables: variables) == "uid"
        }
        guard !negated, c.count >= 3, let last = c.last, last.kind == .string,
            identity(Array(c.dropLast(2)), variables: variables) == "role"
        else { return false }
        let op = keys[keys.count - 2]
        return (["<>", "!="].contains(op) && last.text == "'authenticated'") || (op == "=" && last.text == "'anon'")
    }

    /// The IF … THEN RAISE EXCEPTION blocks whose condition holds for anon, as (condition range,
    /// text); `alone`: only those that test nothing else (no OR with another test).
    func signInGuards(alone: Bool = false) -> [(range: Range<Int>, text: String)] {
        let variables = identityVariables
        var out: [(Range<Int>, String)] = []
        for i in words.indices where (key(i) == "if" || key(i) == "elsif") && key(i - 1) != "end" {
            guard let then = (i..<words.count).first(where: { key($0) == "then" }), key(then + 1) == "raise",
                !["notice", "warning", "log", "info", "debug"].contains(key(then + 2))
            else { continue }
            let cond = Array(words[(i + 1)..<then])
            if holdsForAnon(cond, variables: variables),
                !alone || Self.topLevel(Self.stripped(cond), split: "or").count == 1
            {
                out.append(((i + 1)..<then, "if " + cond.map(\.text).joined(separator: " ") + " then raise"))
            }
        }
        return out
    }

    /// The guard the body runs first (after only assignments) that raises for every anon call,
    /// with no EXCEPTION handler to catch it: anon never gets past it.
    var anonStoppedAtEntry: String? {
        guard let begin = words.indices.first(where: { key($0) == "begin" }),
            !words.indices.contains(where: { key($0) == "exception" && key($0 + 1) == "when" }),
            let first = signInGuards().first
        else { return nil }
        var i = begin + 1
        while i < first.range.lowerBound - 1 {
            let end = statementRange(around: i).upperBound
            guard (i..<end).contains(where: { key($0) == ":=" }), !(i..<end).contains(where: { key($0) == "if" })
            else { return nil }
            i = end + 1
        }
        return i == first.range.lowerBound - 1 ? first.text : nil
    }
}
