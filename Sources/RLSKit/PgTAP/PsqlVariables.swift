/// psql variables: `:name`, `:'name'` (as a literal), `:"name"` (as an identifier) and
/// `:{?name}`, substituted outside quotes and comments, as psql's lexer does.
enum PsqlVariables {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy(isNameChar)
    }

    static func isNameChar(_ c: Unicode.Scalar) -> Bool {
        c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c.value > 127
    }

    static func literal(_ v: String) -> String {
        let body = v.replacingOccurrences(of: "'", with: "''")
        return v.contains("\\") ? " E'" + body.replacingOccurrences(of: "\\", with: "\\\\") + "'" : "'" + body + "'"
    }

    /// Reads a reference at `i` (just after the colon); returns the replacement and its length.
    static func reference(_ s: [Unicode.Scalar], _ i: Int, _ vars: [String: String]) -> (String, Int)? {
        guard i < s.count else { return nil }
        let q = s[i]
        if q == "'" || q == "\"" {
            var j = i + 1
            while j < s.count, isNameChar(s[j]) { j += 1 }
            guard j < s.count, s[j] == q, j > i + 1 else { return nil }
            guard let v = vars[String(String.UnicodeScalarView(s[(i + 1)..<j]))] else { return nil }
            return (q == "'" ? literal(v) : SQL.ident(v, always: true), j + 1 - i)
        }
        if q == "{", i + 1 < s.count, s[i + 1] == "?" {
            var j = i + 2
            while j < s.count, isNameChar(s[j]) { j += 1 }
            guard j < s.count, s[j] == "}" else { return nil }
            return (vars[String(String.UnicodeScalarView(s[(i + 2)..<j]))] == nil ? "FALSE" : "TRUE", j + 1 - i)
        }
        var j = i
        while j < s.count, isNameChar(s[j]) { j += 1 }
        guard j > i, let v = vars[String(String.UnicodeScalarView(s[i..<j]))] else { return nil }
        return (v, j - i)
    }

    /// SQL text with defined variables replaced; undefined ones are left as written (psql does too).
    /// Only a lone `:` token outside quotes and comments starts a reference (`::` is a cast).
    static func substitute(_ sql: String, _ vars: [String: String]) -> String {
        guard !vars.isEmpty, sql.contains(":") else { return sql }
        let s = Array(sql.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        for tok in SQLLexer.tokens(s) where tok.start >= i {
            guard tok.kind == .punctuation, tok.end == tok.start + 1, s[tok.start] == ":",
                let (value, length) = reference(s, tok.start + 1, vars)
            else { continue }
            out.append(contentsOf: s[i..<tok.start])
            out.append(contentsOf: value.unicodeScalars)
            i = tok.start + 1 + length
        }
        out.append(contentsOf: s[i...])
        return String(out)
    }

    /// Splits a meta-command's arguments: whitespace separates, '…' quotes (with psql's
    /// backslash escapes), "…" stays as written, `:name` forms are substituted.
    static func arguments(_ text: String, _ vars: [String: String]) throws(Failure) -> [String] {
        let s = Array(text.unicodeScalars)
        var args: [String] = []
        var i = 0
        while i < s.count {
            while i < s.count, s[i].properties.isWhitespace { i += 1 }
            guard i < s.count else { break }
            var arg = String.UnicodeScalarView()
            while i < s.count, !s[i].properties.isWhitespace {
                let c = s[i]
                if c == "`" { throw Failure(description: "backquoted shell commands are not supported") }
                if c == "'" {
                    i += 1
                    var closed = false
                    while i < s.count {
                        if s[i] == "'" {
                            if i + 1 < s.count, s[i + 1] == "'" {
                                arg.append("'")
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if s[i] == "\\", i + 1 < s.count {
                            let e = s[i + 1]
                            switch e {
                            case "n": arg.append("\n")
                            case "t": arg.append("\t")
                            case "r": arg.append("\r")
                            default: arg.append(e)
                            }
                            i += 2
                            continue
                        }
                        arg.append(s[i])
                        i += 1
                    }
                    if !closed { throw Failure(description: "unterminated quoted string") }
                    continue
                }
                if c == "\"" {
                    var j = i + 1
                    while j < s.count, s[j] != "\"" { j += 1 }
                    arg.append(contentsOf: s[i..<min(j + 1, s.count)])
                    i = min(j + 1, s.count)
                    continue
                }
                if c == ":", let (value, length) = reference(s, i + 1, vars) {
                    arg.append(contentsOf: value.unicodeScalars)
                    i += 1 + length
                    continue
                }
                arg.append(c)
                i += 1
            }
            args.append(String(arg))
        }
        return args
    }
}
