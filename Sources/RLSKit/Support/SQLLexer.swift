/// One token of SQL text, as PostgreSQL's lexer (scan.l) draws its boundaries.
struct SQLToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// An unquoted identifier or keyword.
        case word
        /// `"…"` or `U&"…"`.
        case quotedName
        /// `'…'`, `E'…'`, `U&'…'`, `B'…'`, `X'…'`, `N'…'`, continuations included.
        case string
        /// `$tag$…$tag$`.
        case dollarString
        /// A number, with any trailing junk the server rejects.
        case number
        /// `$1`.
        case parameter
        /// An operator, cut where PostgreSQL cuts it (`--`, `/*`, trailing `+`/`-`).
        case op
        /// `( ) [ ] , ; . : :: := ..`
        case punctuation
        case lineComment, blockComment, space
        /// Any other single character (`\`, `{`, a lone `$`, control characters).
        case other
    }
    var kind: Kind
    /// Scalar offsets: `start..<end`.
    var start: Int
    var end: Int
    /// False for a quote or comment that runs to the end of the text.
    var closed = true

    var isTrivia: Bool { kind == .space || kind == .lineComment || kind == .blockComment }
}

/// The one SQL lexer every splitter and classifier uses. It follows scan.l: identifiers take
/// bytes ≥ 0x80 and `$` after the first character, so `€$a$` is a name, not a dollar quote.
enum SQLLexer {
    static func tokens(_ text: String, standardConformingStrings: Bool = true) -> [SQLToken] {
        tokens(Array(text.unicodeScalars), standardConformingStrings: standardConformingStrings)
    }

    static func tokens(_ s: [Unicode.Scalar], standardConformingStrings: Bool = true) -> [SQLToken] {
        var out: [SQLToken] = []
        scan(s, standardConformingStrings: standardConformingStrings) {
            out.append($0)
            return true
        }
        return out
    }

    /// Hands each token to `body` in order until it returns false.
    static func scan(_ s: [Unicode.Scalar], standardConformingStrings: Bool = true, _ body: (SQLToken) -> Bool) {
        var i = 0
        func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }
        while i < s.count {
            let start = i
            let c = s[i]
            var kind = SQLToken.Kind.other
            var closed = true
            if isSpace(c) {
                while i < s.count, isSpace(s[i]) { i += 1 }
                kind = .space
            } else if c == "-", at(i + 1) == "-" {
                while i < s.count, s[i] != "\n", s[i] != "\r" { i += 1 }
                kind = .lineComment
            } else if c == "/", at(i + 1) == "*" {
                (i, closed) = blockComment(s, i)
                kind = .blockComment
            } else if c == "'" {
                (i, closed) = string(s, i + 1, backslashes: !standardConformingStrings, doubling: true)
                kind = .string
            } else if c == "\"" {
                (i, closed) = quoted(s, i + 1)
                kind = .quotedName
            } else if isIdentStart(c) {
                // N'…' is the word n then a plain string, as in scan.l.
                let next = at(i + 1)
                let lower = c.value < 0x80 ? c.value | 0x20 : 0
                let (e, b, x, u): (UInt32, UInt32, UInt32, UInt32) = (0x65, 0x62, 0x78, 0x75)
                if next == "'", lower == e || lower == b || lower == x {
                    (i, closed) = string(s, i + 2, backslashes: lower == e, doubling: lower == e)
                    kind = .string
                } else if lower == u, next == "&", at(i + 2) == "'" {
                    (i, closed) = string(s, i + 3, backslashes: false, doubling: true)
                    kind = .string
                } else if lower == u, next == "&", at(i + 2) == "\"" {
                    (i, closed) = quoted(s, i + 3)
                    kind = .quotedName
                } else {
                    i = identifierEnd(s, i)
                    kind = .word
                }
            } else if c == "$" {
                if let d = at(i + 1), isDigit(d) {
                    i += 1
                    while i < s.count, isDigit(s[i]) { i += 1 }
                    kind = .parameter
                } else if let tag = dollarTag(s, i) {
                    (i, closed) = dollarBody(s, i + tag.count, tag)
                    kind = .dollarString
                } else {
                    i += 1
                }
            } else if isDigit(c) || (c == "." && at(i + 1).map(isDigit) == true) {
                i = number(s, i)
                kind = .number
            } else if isOpChar(c) {
                i = operatorEnd(s, i)
                kind = .op
            } else if c == ":" || c == "." {
                let n = at(i + 1)
                i += (c == ":" && (n == ":" || n == "=")) || (c == "." && n == ".") ? 2 : 1
                kind = .punctuation
            } else if c == "(" || c == ")" || c == "[" || c == "]" || c == "," || c == ";" {
                i += 1
                kind = .punctuation
            } else {
                i += 1
            }
            if !body(SQLToken(kind: kind, start: start, end: i, closed: closed)) { return }
        }
    }

    /// scan.l's `space`; non-ASCII spaces are identifier characters to PostgreSQL.
    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0C}" || c == "\u{0B}"
    }
    static func isIdentStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c.value >= 0x80
    }
    static func isIdentContinue(_ c: Unicode.Scalar) -> Bool {
        isIdentStart(c) || isDigit(c) || c == "$"
    }
    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    static func isOpChar(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "~", "!", "@", "#", "^", "&", "|", "`", "?", "+", "-", "*", "/", "%", "<", ">", "=": true
        default: false
        }
    }

    static func identifierEnd(_ s: [Unicode.Scalar], _ i: Int) -> Int {
        guard i < s.count, isIdentStart(s[i]) else { return i }
        var j = i + 1
        while j < s.count, isIdentContinue(s[j]) { j += 1 }
        return j
    }

    /// `$$` or `$tag$` at i (the tag follows identifier rules, without `$`); nil otherwise.
    static func dollarTag(_ s: [Unicode.Scalar], _ i: Int) -> ArraySlice<Unicode.Scalar>? {
        var j = i + 1
        if j < s.count, isIdentStart(s[j]) {
            j += 1
            while j < s.count, isIdentStart(s[j]) || isDigit(s[j]) { j += 1 }
        }
        guard j < s.count, s[j] == "$" else { return nil }
        return s[i...j]
    }

    static func dollarBody(_ s: [Unicode.Scalar], _ from: Int, _ tag: ArraySlice<Unicode.Scalar>) -> (Int, Bool) {
        var i = from
        while i < s.count {
            if s[i] == "$", i + tag.count <= s.count, s[i..<(i + tag.count)].elementsEqual(tag) {
                return (i + tag.count, true)
            }
            i += 1
        }
        return (i, false)
    }

    /// Nested `/* */`; returns the end and whether it closed.
    static func blockComment(_ s: [Unicode.Scalar], _ start: Int) -> (Int, Bool) {
        var depth = 0
        var i = start
        while i < s.count {
            if s[i] == "/", i + 1 < s.count, s[i + 1] == "*" {
                depth += 1
                i += 2
                continue
            }
            if s[i] == "*", i + 1 < s.count, s[i + 1] == "/" {
                depth -= 1
                i += 2
                if depth == 0 { return (i, true) }
                continue
            }
            i += 1
        }
        return (i, false)
    }

    /// A `"…"` name from just after its opening quote.
    static func quoted(_ s: [Unicode.Scalar], _ from: Int) -> (Int, Bool) {
        var i = from
        while i < s.count {
            if s[i] == "\"" {
                if i + 1 < s.count, s[i + 1] == "\"" {
                    i += 2
                    continue
                }
                return (i + 1, true)
            }
            i += 1
        }
        return (i, false)
    }

    /// A string from just after its opening quote, with the continuation of a quote that is
    /// followed by whitespace holding a newline and another quote (`'a'\n'b'` is one string).
    static func string(_ s: [Unicode.Scalar], _ from: Int, backslashes: Bool, doubling: Bool) -> (Int, Bool) {
        var i = from
        while i < s.count {
            if backslashes, s[i] == "\\" {
                i += 2
                continue
            }
            if s[i] == "'" {
                if doubling, i + 1 < s.count, s[i + 1] == "'" {
                    i += 2
                    continue
                }
                if let next = continuation(s, i + 1) {
                    i = next
                    continue
                }
                return (i + 1, true)
            }
            i += 1
        }
        return (min(i, s.count), false)
    }

    /// Where the continued string resumes, if a continuation follows at i.
    static func continuation(_ s: [Unicode.Scalar], _ from: Int) -> Int? {
        var i = from
        var newline = false
        while i < s.count {
            let c = s[i]
            if c == "\n" || c == "\r" {
                newline = true
                i += 1
            } else if isSpace(c) {
                i += 1
            } else if c == "-", i + 1 < s.count, s[i + 1] == "-" {
                while i < s.count, s[i] != "\n", s[i] != "\r" { i += 1 }
            } else {
                break
            }
        }
        return newline && i < s.count && s[i] == "'" ? i + 1 : nil
    }

    static func digitsEnd(_ s: [Unicode.Scalar], _ from: Int) -> Int {
        var i = from
        while i < s.count {
            if isDigit(s[i]) {
                i += 1
            } else if s[i] == "_", i > from, i + 1 < s.count, isDigit(s[i + 1]) {
                i += 2
            } else {
                break
            }
        }
        return i
    }

    /// Integer, numeric or real; trailing identifier characters are junk the server rejects,
    /// kept in the token as scan.l does (`0x1F`, `1abc`).
    static func number(_ s: [Unicode.Scalar], _ start: Int) -> Int {
        var i = digitsEnd(s, start)
        if i < s.count, s[i] == ".", !(i + 1 < s.count && s[i + 1] == ".") {
            i = digitsEnd(s, i + 1)
        }
        if i < s.count, s[i] == "e" || s[i] == "E" {
            var j = i + 1
            if j < s.count, s[j] == "+" || s[j] == "-" { j += 1 }
            if j < s.count, isDigit(s[j]) { i = digitsEnd(s, j) } else if j > i + 1 { return i + 1 }
        }
        return identifierEnd(s, i)
    }

    /// scan.l's operator rule: cut before `--` or `/*`, and drop trailing `+`/`-` unless the
    /// operator has one of `~!@#^&|`?%` (so `=-1` is `=` then `-1`).
    static func operatorEnd(_ s: [Unicode.Scalar], _ start: Int) -> Int {
        var end = start
        while end < s.count, isOpChar(s[end]) { end += 1 }
        var n = end - start
        for k in start..<end where k + 1 < end && ((s[k] == "-" && s[k + 1] == "-") || (s[k] == "/" && s[k + 1] == "*"))
        {
            n = k - start
            break
        }
        if n > 1, s[start + n - 1] == "+" || s[start + n - 1] == "-" {
            let special = s[start..<(start + n - 1)].contains { "~!@#^&|`?%".unicodeScalars.contains($0) }
            if !special {
                repeat { n -= 1 } while n > 1 && (s[start + n - 1] == "+" || s[start + n - 1] == "-")
            }
        }
        return start + max(n, 1)
    }
}
