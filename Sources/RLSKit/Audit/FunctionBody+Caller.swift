/// Whether a function body checks its caller, and whether it only reads.
extension FunctionBody {
    /// What the body checks the caller with inside a condition (`auth.uid()`, a helper that
    /// does, a variable filled from such a check), or a call anywhere of a helper that raises
    /// unless the caller qualifies; nil when it never does.
    func callerCheck(
        helpers: Set<String>, raisingHelpers: Set<String> = [], secretArguments: Set<String> = [],
        anywhere: Bool = false, ignoring: Set<Int> = []
    ) -> String? {
        let derived = anywhere ? [:] : callerDerivedVariables(helpers: helpers, secretArguments: secretArguments)
        var inCondition = false
        for i in words.indices {
            let k = key(i)
            if words[i].kind == .word, key(i + 1) == "(", key(i - 1) != "function", raisingHelpers.contains(k) {
                return "\(k)(), which raises unless the caller qualifies"
            }
            if Self.conditionStart.contains(k) {
                inCondition = true
                continue
            }
            if Self.conditionEnd.contains(k) {
                inCondition = false
                continue
            }
            guard inCondition || anywhere, !ignoring.contains(i) else { continue }
            if let check = checkAt(i, helpers: helpers, secretArguments: secretArguments) { return check }
            if words[i].kind == .word, key(i - 1) != ".", let source = derived[k] {
                return "\(words[i].text), filled from \(source)"
            }
        }
        return nil
    }

    /// The caller check that word `i` starts, if any.
    func checkAt(_ i: Int, helpers: Set<String>, secretArguments: Set<String>) -> String? {
        let k = key(i)
        if k == "auth", key(i + 1) == ".", ["uid", "jwt", "role"].contains(key(i + 2)), key(i + 3) == "(" {
            return "auth.\(key(i + 2))()"
        }
        if k == "current_setting", key(i + 1) == "(", words.indices.contains(i + 2), words[i + 2].kind == .string,
            words[i + 2].text.contains("request.jwt") || words[i + 2].text == "'role'"
        {
            return "current_setting(\(words[i + 2].text))"
        }
        // A lookup by a secret the caller must know (`where lower(code) = lower(invite_code)`).
        if secretArguments.contains(k), key(i - 1) != ".", inComparison(i) {
            return "a lookup by its secret argument \(k)"
        }
        if words[i].kind == .word, key(i + 1) == "(", key(i - 1) != "function", helpers.contains(k) {
            return "\(k)(), which checks the caller"
        }
        return nil
    }

    /// True when word `i` is an operand of `=`, `<>` or `!=` within its conjunct.
    func inComparison(_ i: Int) -> Bool {
        let stops = Self.conditionStart.union(Self.conditionEnd).union(["select", "from", ","])
        var j = i - 1
        while j >= 0, !stops.contains(key(j)) {
            if ["=", "<>", "!="].contains(key(j)) { return true }
            j -= 1
        }
        j = i + 1
        while j < words.count, !stops.contains(key(j)) {
            if ["=", "<>", "!="].contains(key(j)) { return true }
            j += 1
        }
        return false
    }

    /// Variables a SELECT INTO or `:=` fills from a statement that checks the caller
    /// (`select has_role(acct, 'owner') into is_owner`), with that check.
    func callerDerivedVariables(helpers: Set<String>, secretArguments: Set<String> = []) -> [String: String] {
        var out: [String: String] = [:]
        var start = 0
        for end in words.indices where key(end) == ";" || end == words.count - 1 {
            let range = start...end
            start = end + 1
            let targets = assignedVariables(in: range)
            guard !targets.isEmpty,
                let check = range.lazy.compactMap({
                    self.checkAt($0, helpers: helpers, secretArguments: secretArguments)
                })
                .first
            else { continue }
            for t in targets where out[t] == nil { out[t] = check }
        }
        return out
    }

    /// The variables `select … into a, b` or `a := …` in these words assigns.
    func assignedVariables(in range: ClosedRange<Int>) -> [String] {
        var out: [String] = []
        for i in range {
            if key(i) == "into", key(i - 1) != "insert", words.indices.contains(i + 1) {
                var j = i + 1
                if key(j) == "strict" { j += 1 }
                while words.indices.contains(j), words[j].kind == .word || key(j) == "," {
                    if words[j].kind == .word { out.append(key(j)) }
                    j += 1
                }
            }
            if let v = assignmentTarget(at: i) { out.append(v) }
        }
        return out
    }

    /// True when some `IF … THEN RAISE` tests the caller: calling this function checks them.
    func raisesUnlessCaller(helpers: Set<String>) -> Bool {
        let derived = callerDerivedVariables(helpers: helpers)
        for i in words.indices where key(i) == "if" || key(i) == "elsif" {
            guard let then = (i..<words.count).first(where: { key($0) == "then" }), key(then + 1) == "raise" else {
                continue
            }
            for j in (i + 1)..<then {
                if checkAt(j, helpers: helpers, secretArguments: []) != nil { return true }
                if words[j].kind == .word, key(j - 1) != ".", derived[key(j)] != nil { return true }
            }
        }
        return false
    }
}

extension FunctionBody {
    /// Statements and calls that write or reach outside: a body with none only reads.
    static let writing: Set<String> = [
        "insert", "update", "delete", "merge", "truncate", "perform", "execute", "call", "copy", "alter", "drop",
        "create", "grant", "revoke", "notify", "http", "http_post", "http_get", "http_request", "nextval", "setval",
        "set_config", "pg_notify", "dblink", "dblink_exec", "lo_import", "lo_export",
    ]

    /// True when the body has no write and calls nothing that writes or goes out.
    var isReadOnly: Bool { !words.contains { $0.kind == .word && Self.writing.contains($0.key) } }
}
