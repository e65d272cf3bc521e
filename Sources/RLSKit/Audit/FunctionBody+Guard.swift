// The shapes of an IF condition that NULL makes never true.
extension FunctionBody {
    /// The x of each AND part `x <> c`, `x != c`, `x not in (c, …)`, `x <> all (array[c, …])`,
    /// `not (x = c)`, `not (x in (…))` or `not (x = any (…))`, c constants: when x is NULL that
    /// part is NULL, so the whole AND is never true and the IF is skipped. Nothing under an OR.
    static func negatedSubjects(_ cond: [Word]) -> [[Word]] {
        let c = stripped(cond)
        if !topLevel(c, split: "or").dropFirst().isEmpty { return [] }
        let parts = topLevel(c, split: "and")
        if parts.count > 1 { return parts.flatMap(negatedSubjects) }
        var p = c
        var positive = false
        if p.first?.key == "not" {
            p = stripped(Array(p.dropFirst()))
            positive = true
        }
        var depth = 0
        for i in p.indices {
            let k = p[i].key
            if k == "(" || k == "[" { depth += 1 }
            if k == ")" || k == "]" { depth -= 1 }
            guard depth == 0, i > 0 else { continue }
            let lhs = Array(p[..<i])
            let rhs = Array(p[(i + 1)...])
            switch (k, positive) {
            case ("<>", false), ("!=", false):
                return isConstant(rhs.first?.key == "all" ? Array(rhs.dropFirst()) : rhs) ? [lhs] : []
            case ("not", false) where rhs.first?.key == "in":
                return isConstant(Array(rhs.dropFirst())) ? [lhs] : []
            case ("=", true):
                return isConstant(rhs.first?.key == "any" ? Array(rhs.dropFirst()) : rhs) ? [lhs] : []
            case ("in", true):
                return isConstant(rhs) ? [lhs] : []
            default: continue
            }
        }
        return []
    }

    /// Only constants: strings, numbers, `array[…]`, lists, casts to a type.
    static func isConstant(_ expr: [Word]) -> Bool {
        guard !expr.isEmpty else { return false }
        return expr.indices.allSatisfy { i in
            let w = expr[i]
            if w.kind == .string || w.kind == .number { return true }
            if ["(", ")", "[", "]", ",", "::", "array"].contains(w.key) { return true }
            return w.kind == .word && i > 0 && expr[i - 1].key == "::"
        }
    }

    /// `cond` without parentheses that enclose all of it.
    static func stripped(_ cond: [Word]) -> [Word] {
        var c = cond
        while c.first?.key == "(", c.last?.key == ")", balanced(Array(c.dropFirst().dropLast())) {
            c = Array(c.dropFirst().dropLast())
        }
        return c
    }

    static func balanced(_ c: [Word]) -> Bool {
        var depth = 0
        for w in c {
            if w.key == "(" || w.key == "[" { depth += 1 }
            if w.key == ")" || w.key == "]" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }

    /// Splits at `k` outside brackets.
    static func topLevel(_ c: [Word], split k: String) -> [[Word]] {
        var parts: [[Word]] = [[]]
        var depth = 0
        for w in c {
            if w.key == "(" || w.key == "[" { depth += 1 }
            if w.key == ")" || w.key == "]" { depth -= 1 }
            if depth == 0, w.key == k { parts.append([]) } else { parts[parts.count - 1].append(w) }
        }
        return parts
    }
}
