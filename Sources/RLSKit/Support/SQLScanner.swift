/// One top-level statement of a SQL file, or one psql meta-command line.
struct SQLStatement: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case sql
        /// A psql backslash command (`\set x 1`), which is not SQL.
        case meta
    }
    var kind: Kind
    /// The statement without its terminating semicolon, comments and spacing around it kept
    /// inside, leading whitespace and comments dropped.
    var text: String
    /// Offset of the first character, counted in Unicode scalars as the server counts positions.
    var offset: Int
    var line: Int
    var column: Int
}

/// Splits SQL text into statements where PostgreSQL's grammar ends them, on the tokens of
/// `SQLLexer`: at a `;` outside parentheses and outside the BEGIN ATOMIC … END body of a
/// CREATE FUNCTION or PROCEDURE. A backslash outside quotes begins a psql meta-command, which
/// runs to the end of its line and ends the statement before it, as in psql.
enum SQLScanner {
    /// `standardConformingStrings` as the server that receives the text has it: when off,
    /// a backslash escapes a quote in '…' too.
    static func statements(in text: String, standardConformingStrings: Bool = true) -> [SQLStatement] {
        let s = Array(text.unicodeScalars)
        // After a meta-command the text is lexed afresh from the next line, as psql does.
        func lex(from base: Int) -> [SQLToken] {
            SQLLexer.tokens(Array(s[base...]), standardConformingStrings: standardConformingStrings).map {
                var tok = $0
                tok.start += base
                tok.end += base
                return tok
            }
        }
        var tokens = lex(from: 0)
        var out: [SQLStatement] = []
        var line = 1
        var col = 1
        var seen = 0
        // Line and column of scalar offset k; offsets only grow.
        func position(_ k: Int) -> (Int, Int) {
            while seen < k {
                if s[seen] == "\n" {
                    line += 1
                    col = 1
                } else {
                    col += 1
                }
                seen += 1
            }
            return (line, col)
        }
        var t = 0
        while t < tokens.count {
            if tokens[t].isTrivia || (tokens[t].kind == .punctuation && s[tokens[t].start] == ";") {
                t += 1
                continue
            }
            let start = tokens[t].start
            let (l, c) = position(start)
            if tokens[t].kind == .other, s[start] == "\\" {
                var end = start
                while end < s.count, s[end] != "\n" { end += 1 }
                tokens = lex(from: end)
                t = 0
                out.append(
                    SQLStatement(
                        kind: .meta, text: String(String.UnicodeScalarView(s[start..<end])), offset: start, line: l,
                        column: c))
                continue
            }
            var split = Splitter()
            var end = start
            while t < tokens.count {
                let tok = tokens[t]
                // psql ends the query buffer at a backslash outside quotes: a meta-command follows
                // (`select 1 \gset`); the server could never parse one there anyway.
                if tok.kind == .other, s[tok.start] == "\\" { break }
                t += 1
                if split.ends(tok, s, next: { nextWord(tokens, t, s) }) { break }
                if tok.kind != .space { end = tok.end }
            }
            // A comment running to the end of the text ends before its trailing spaces.
            while end > start, SQLLexer.isSpace(s[end - 1]) { end -= 1 }
            let body = String(String.UnicodeScalarView(s[start..<end]))
            out.append(SQLStatement(kind: .sql, text: body, offset: start, line: l, column: c))
        }
        return out
    }

    /// The `;` that ends a statement, tracking parentheses and BEGIN ATOMIC bodies.
    struct Splitter {
        var parens = 0, blocks = 0
        var words: [String] = []

        mutating func ends(_ tok: SQLToken, _ s: [Unicode.Scalar], next: () -> String?) -> Bool {
            switch tok.kind {
            case .punctuation:
                switch s[tok.start] {
                case "(": parens += 1
                case ")": parens = max(0, parens - 1)
                case ";": return parens == 0 && blocks == 0
                default: break
                }
            case .word:
                guard words.count < 5 || (parens == 0 && isRoutine) else { break }
                // Every word that matters here is short; longer ones need no string.
                let w =
                    tok.end - tok.start <= 9
                    ? String(String.UnicodeScalarView(s[tok.start..<tok.end])).lowercased() : ""
                if words.count < 5 { words.append(w) }
                guard parens == 0, isRoutine else { break }
                if w == "begin", next() == "atomic" {
                    blocks += 1
                } else if w == "case", blocks > 0 {
                    blocks += 1
                } else if w == "end", blocks > 0 {
                    blocks -= 1
                }
            default: break
            }
            return false
        }

        /// CREATE [OR REPLACE] FUNCTION|PROCEDURE: only these have BEGIN ATOMIC bodies.
        var isRoutine: Bool {
            guard words.first == "create" else { return false }
            let rest =
                words.count > 2 && words[1] == "or" && words[2] == "replace" ? words.dropFirst(3) : words.dropFirst()
            return rest.first == "function" || rest.first == "procedure"
        }
    }

    /// The next word after token index t, lowercased, trivia skipped.
    static func nextWord(_ tokens: [SQLToken], _ t: Int, _ s: [Unicode.Scalar]) -> String? {
        var k = t
        while k < tokens.count, tokens[k].isTrivia { k += 1 }
        guard k < tokens.count, tokens[k].kind == .word else { return nil }
        return String(String.UnicodeScalarView(s[tokens[k].start..<tokens[k].end])).lowercased()
    }

    /// The first `count` unquoted words of a statement, lowercased; comments, quotes and
    /// punctuation skipped (`commit--x` is `commit`; `'commit'` is no word). With `names`,
    /// quoted names count too, as written (`"pgtap"`).
    static func keywords(_ text: String, count: Int, names: Bool = false) -> [String] {
        let s = Array(text.unicodeScalars)
        var out: [String] = []
        SQLLexer.scan(s) { tok in
            if tok.kind == .word || (names && tok.kind == .quotedName) {
                out.append(String(String.UnicodeScalarView(s[tok.start..<tok.end])).lowercased())
            }
            return out.count < count
        }
        return out
    }

    /// The 1-based line and column of a 1-based scalar position (as in `PostgresError.position`).
    static func lineAndColumn(ofPosition position: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1
        var col = 1
        var k = 1
        for c in text.unicodeScalars {
            if k >= position { break }
            if c == "\n" {
                line += 1
                col = 1
            } else {
                col += 1
            }
            k += 1
        }
        return (line, col)
    }
}
