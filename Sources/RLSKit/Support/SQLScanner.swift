/// One top-level statement of a SQL file, or one psql meta-command line.
public struct SQLStatement: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case sql
        /// A psql backslash command (`\set x 1`), which is not SQL.
        case meta
    }
    public var kind: Kind
    /// The statement without its terminating semicolon, comments and spacing around it kept
    /// inside, leading whitespace and comments dropped.
    public var text: String
    /// Offset of the first character, counted in Unicode scalars as the server counts positions.
    public var offset: Int
    public var line: Int
    public var column: Int
}

/// Splits SQL text into statements the way psql does: semicolons end statements except
/// inside quotes ('…', E'…', "…"), dollar quotes ($tag$…$tag$), comments (-- and nested /* */)
/// and parentheses. Lines starting with a backslash are psql meta-commands.
public enum SQLScanner {
    public static func statements(in text: String) -> [SQLStatement] {
        let s = Array(text.unicodeScalars)
        var out: [SQLStatement] = []
        var i = 0
        var line = 1, col = 1
        func advance(_ n: Int = 1) {
            for _ in 0..<n where i < s.count {
                if s[i] == "\n" { line += 1; col = 1 } else { col += 1 }
                i += 1
            }
        }
        func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }
        while i < s.count {
            // Skip whitespace and comments between statements.
            if s[i].properties.isWhitespace { advance(); continue }
            if s[i] == "-", at(i + 1) == "-" { while i < s.count, s[i] != "\n" { advance() }; continue }
            if s[i] == "/", at(i + 1) == "*" { advance(blockCommentLength(s, i)); continue }
            let start = i, startLine = line, startCol = col
            if s[i] == "\\" {
                while i < s.count, s[i] != "\n" { advance() }
                out.append(SQLStatement(kind: .meta, text: String(String.UnicodeScalarView(s[start..<i])), offset: start, line: startLine, column: startCol))
                continue
            }
            var depth = 0
            // Like psql: inside CREATE …, BEGIN/CASE open and END closes a block, so the
            // semicolons of a BEGIN ATOMIC … END body do not end the statement.
            var blockDepth = 0
            var firstWord: String?
            var end = s.count
            scan: while i < s.count {
                let c = s[i]
                switch c {
                case ";" where depth == 0 && blockDepth == 0:
                    end = i
                    advance()
                    break scan
                case "(": depth += 1; advance()
                case ")": depth = max(0, depth - 1); advance()
                case "'":
                    let escapes = i > start && (s[i - 1] == "E" || s[i - 1] == "e") && (i - 1 == start || !isIdent(s[i - 2]))
                    advance()
                    while i < s.count {
                        if escapes, s[i] == "\\" { advance(2); continue }
                        if s[i] == "'" { if at(i + 1) == "'" { advance(2); continue }; advance(); break }
                        advance()
                    }
                case "\"":
                    advance()
                    while i < s.count {
                        if s[i] == "\"" { if at(i + 1) == "\"" { advance(2); continue }; advance(); break }
                        advance()
                    }
                case "-" where at(i + 1) == "-":
                    while i < s.count, s[i] != "\n" { advance() }
                case "/" where at(i + 1) == "*":
                    advance(blockCommentLength(s, i))
                case "$" where i == start || !isIdent(s[i - 1]):
                    if let tag = dollarTag(s, i) {
                        advance(tag.count)
                        while i < s.count {
                            if s[i] == "$", Array(s[i..<min(s.count, i + tag.count)]) == tag { advance(tag.count); break }
                            advance()
                        }
                    } else { advance() }
                default:
                    if isIdent(c), i == start || !isIdent(s[i - 1]) {
                        var j = i
                        while j < s.count, isIdent(s[j]) || s[j] == "$" { j += 1 }
                        let word = String(String.UnicodeScalarView(s[i..<j])).lowercased()
                        if firstWord == nil { firstWord = word }
                        if firstWord == "create" {
                            if word == "begin" || word == "case" { blockDepth += 1 } else if word == "end", blockDepth > 0 { blockDepth -= 1 }
                        }
                        advance(j - i)
                    } else {
                        advance()
                    }
                }
            }
            var text = String(String.UnicodeScalarView(s[start..<end]))
            while let last = text.unicodeScalars.last, last.properties.isWhitespace { text.unicodeScalars.removeLast() }
            if !text.isEmpty {
                out.append(SQLStatement(kind: .sql, text: text, offset: start, line: startLine, column: startCol))
            }
        }
        return out
    }

    /// The first `count` words of a statement, lowercased, skipping comments and punctuation.
    public static func keywords(_ text: String, count: Int) -> [String] {
        let s = Array(text.unicodeScalars)
        var out: [String] = []
        var i = 0
        var word = ""
        while i < s.count, out.count < count {
            if s[i] == "-", i + 1 < s.count, s[i + 1] == "-" {
                while i < s.count, s[i] != "\n" { i += 1 }
            } else if s[i] == "/", i + 1 < s.count, s[i + 1] == "*" {
                i += blockCommentLength(s, i)
            } else if isIdent(s[i]) {
                word.unicodeScalars.append(s[i])
                i += 1
                continue
            } else {
                i += 1
            }
            if !word.isEmpty { out.append(word.lowercased()); word = "" }
        }
        if !word.isEmpty, out.count < count { out.append(word.lowercased()) }
        return out
    }

    /// The 1-based line and column of a 1-based scalar position (as in `PostgresError.position`).
    public static func lineAndColumn(ofPosition position: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1, col = 1, k = 1
        for c in text.unicodeScalars {
            if k >= position { break }
            if c == "\n" { line += 1; col = 1 } else { col += 1 }
            k += 1
        }
        return (line, col)
    }

    static func isIdent(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic || ("0"..."9").contains(c)
    }

    /// `$$` or `$tag$` starting at i, as scalars; nil when `$` starts a parameter like `$1`.
    static func dollarTag(_ s: [Unicode.Scalar], _ i: Int) -> [Unicode.Scalar]? {
        var j = i + 1
        while j < s.count, s[j] != "$" {
            guard isIdent(s[j]), !(j == i + 1 && ("0"..."9").contains(s[j])) else { return nil }
            j += 1
        }
        guard j < s.count else { return nil }
        return Array(s[i...j])
    }

    /// Length of the (nestable) block comment starting at i, to the end of text if unclosed.
    static func blockCommentLength(_ s: [Unicode.Scalar], _ start: Int) -> Int {
        var depth = 0
        var i = start
        while i < s.count {
            if s[i] == "/", i + 1 < s.count, s[i + 1] == "*" { depth += 1; i += 2; continue }
            if s[i] == "*", i + 1 < s.count, s[i + 1] == "/" { depth -= 1; i += 2; if depth == 0 { break }; continue }
            i += 1
        }
        return i - start
    }
}
