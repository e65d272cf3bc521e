/// Points calls of `tests.<helper>(` at the session-local copy (`pg_temp.tests_<helper>(`),
/// in strings too, since pgTAP runs SQL it is given as text (throws_ok, is_empty, …).
/// Other `tests.*` names are left alone.
struct HelperRewrite {
    let text: String
    /// Where each inserted prefix ends in the new text (0-based scalar offsets), in order.
    let ends: [Int]
    static let from = "tests."
    static let delta = SupabaseTestHelpers.sessionPrefix.unicodeScalars.count - from.unicodeScalars.count
    static let names = SupabaseTestHelpers.names.sorted { $0.count > $1.count }.map { Array($0.unicodeScalars) }

    init(_ sql: String) {
        let s = Array(sql.unicodeScalars)
        var out = String.UnicodeScalarView()
        var ends: [Int] = []
        var i = 0
        while i < s.count {
            if let name = Self.call(s, i) {
                out.append(contentsOf: SupabaseTestHelpers.sessionPrefix.unicodeScalars)
                ends.append(out.count)
                out.append(contentsOf: s[(i + 6)..<(i + 6 + name)])
                i += 6 + name
                continue
            }
            out.append(s[i])
            i += 1
        }
        text = String(out)
        self.ends = ends
    }

    /// The helper name's length when `tests.<helper>` followed by `(` starts at i.
    static func call(_ s: [Unicode.Scalar], _ i: Int) -> Int? {
        guard i + 6 < s.count, s[i] == "t" || s[i] == "T" else { return nil }
        if i > 0, SQLLexer.isIdentContinue(s[i - 1]) || s[i - 1] == "." || s[i - 1] == "\"" { return nil }
        guard String(String.UnicodeScalarView(s[i..<(i + 6)])).lowercased() == from else { return nil }
        for name in names where i + 6 + name.count <= s.count {
            let candidate = String(String.UnicodeScalarView(s[(i + 6)..<(i + 6 + name.count)])).lowercased()
            guard candidate == String(String.UnicodeScalarView(name)) else { continue }
            var j = i + 6 + name.count
            if j < s.count, SQLLexer.isIdentContinue(s[j]) { continue }
            while j < s.count, s[j].properties.isWhitespace { j += 1 }
            if j < s.count, s[j] == "(" { return name.count }
        }
        return nil
    }

    /// A 1-based position in the rewritten text, as a position in the original.
    func originalPosition(_ p: Int) -> Int {
        p - ends.count { $0 <= p - 1 } * Self.delta
    }
}
