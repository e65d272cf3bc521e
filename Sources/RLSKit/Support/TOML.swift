import Foundation

/// A TOML value: what `supabase/config.toml` needs (TOML 1.0 without dates as their own type:
/// dates and times are kept as their text).
enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    var integer: Int64? { if case .integer(let i) = self { i } else { nil } }
    var array: [TOMLValue]? { if case .array(let a) = self { a } else { nil } }
    var table: TOMLTable? { if case .table(let t) = self { t } else { nil } }
}

/// A table keeps its keys in the order the file gave them, and the line each was set on.
struct TOMLTable: Sendable, Equatable {
    private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var lines: [String: Int] = [:]

    init() {}

    subscript(_ key: String) -> TOMLValue? { values[key] }

    /// The value at a dotted path of plain keys (`api.schemas`).
    func value(at path: String) -> TOMLValue? {
        var table = self
        let parts = path.split(separator: ".").map(String.init)
        for part in parts.dropLast() {
            guard let next = table[part]?.table else { return nil }
            table = next
        }
        return parts.last.flatMap { table[$0] }
    }

    /// The line a key of this table was set on.
    func line(of key: String) -> Int? { lines[key] }

    mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if values[key] == nil { keys.append(key) }
        values[key] = value
        lines[key] = line
    }
}

/// Reads TOML: comments, bare / quoted / dotted keys, `[tables]`, `[[arrays of tables]]`, the
/// four string forms, integers (decimal, hex, octal, binary, `_`), floats, booleans, arrays,
/// inline tables. A mistake is one `InputError` with the file's line.
struct TOMLReader {
    let s: [Unicode.Scalar]
    let file: String
    var i = 0
    var line = 1

    static func parse(_ text: String, file: String) throws(InputError) -> TOMLTable {
        var r = TOMLReader(s: Array(text.unicodeScalars), file: file)
        return try r.document()
    }

    func fail(_ message: String, line: Int? = nil) -> InputError {
        InputError(SourceLocation(file: file, line: line ?? self.line), message)
    }

    var current: Unicode.Scalar? { i < s.count ? s[i] : nil }
    func peek(_ k: Int) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

    mutating func advance() {
        if s[i] == "\n" { line += 1 }
        i += 1
    }

    mutating func skipSpaces() { while let c = current, c == " " || c == "\t" { advance() } }

    /// Spaces, then a comment, then the end of the line (or of the file).
    mutating func endOfLine() throws(InputError) {
        skipSpaces()
        if current == "#" { while let c = current, c != "\n" { advance() } }
        if current == "\r", peek(1) == "\n" { advance() }
        guard let c = current else { return }
        guard c == "\n" else { throw fail("unexpected '\(Character(c))' after a value; expected the end of the line") }
        advance()
    }

    /// The path of the table being filled, and whether it is an element of an array of tables.
    mutating func document() throws(InputError) -> TOMLTable {
        var root = TOMLTable()
        var path: [String] = []
        var defined = Set<String>()
        while i < s.count {
            skipSpaces()
            guard let c = current else { break }
            if c == "#" || c == "\n" || c == "\r" {
                try endOfLine()
                continue
            }
            let at = line
            if c == "[" {
                advance()
                let isArray = current == "["
                if isArray { advance() }
                skipSpaces()
                path = try key()
                skipSpaces()
                guard current == "]" else { throw fail("expected ']' to close the table header") }
                advance()
                if isArray {
                    guard current == "]" else { throw fail("expected ']]' to close the array-of-tables header") }
                    advance()
                    try Self.appendTable(to: &root, path, line: at, reader: self)
                } else {
                    let name = path.joined(separator: "\u{1F}")
                    guard defined.insert(name).inserted else {
                        throw fail("table [\(path.joined(separator: "."))] is defined twice")
                    }
                    try Self.insert(into: &root, path, nil, line: at, reader: self)
                }
                try endOfLine()
                continue
            }
            let k = try key()
            skipSpaces()
            guard current == "=" else { throw fail("expected '=' after the key '\(k.joined(separator: "."))'") }
            advance()
            skipSpaces()
            let v = try value()
            try Self.insert(into: &root, path + k, v, line: at, reader: self)
            try endOfLine()
        }
        return root
    }

    /// Sets `path` to `value` (nil: make sure a table exists there), descending into the last
    /// element of arrays of tables as TOML does.
    static func insert(
        into table: inout TOMLTable, _ path: [String], _ value: TOMLValue?, line: Int, reader: TOMLReader
    ) throws(InputError) {
        guard let first = path.first else { return }
        if path.count == 1 {
            if let value {
                guard table[first] == nil else { throw reader.fail("the key '\(first)' is set twice", line: line) }
                table.set(first, value, line: line)
            } else if table[first] == nil {
                table.set(first, .table(TOMLTable()), line: line)
            } else if table[first]?.table == nil {
                throw reader.fail("'\(first)' is already a value, not a table", line: line)
            }
            return
        }
        let rest = Array(path.dropFirst())
        switch table[first] {
        case nil:
            var sub = TOMLTable()
            try insert(into: &sub, rest, value, line: line, reader: reader)
            table.set(first, .table(sub), line: line)
        case .table(var sub)?:
            try insert(into: &sub, rest, value, line: line, reader: reader)
            table.set(first, .table(sub), line: table.line(of: first) ?? line)
        case .array(var items)? where items.last?.table != nil:
            var sub = items.removeLast().table!
            try insert(into: &sub, rest, value, line: line, reader: reader)
            items.append(.table(sub))
            table.set(first, .array(items), line: table.line(of: first) ?? line)
        default:
            throw reader.fail("'\(first)' is already a value, not a table", line: line)
        }
    }

    static func appendTable(to table: inout TOMLTable, _ path: [String], line: Int, reader: TOMLReader)
        throws(InputError)
    {
        guard let first = path.first else { return }
        if path.count == 1 {
            switch table[first] {
            case nil: table.set(first, .array([.table(TOMLTable())]), line: line)
            case .array(let items)? where items.allSatisfy({ $0.table != nil }):
                table.set(first, .array(items + [.table(TOMLTable())]), line: table.line(of: first) ?? line)
            default: throw reader.fail("'\(first)' is already a value, not an array of tables", line: line)
            }
            return
        }
        let rest = Array(path.dropFirst())
        switch table[first] {
        case nil:
            var sub = TOMLTable()
            try appendTable(to: &sub, rest, line: line, reader: reader)
            table.set(first, .table(sub), line: line)
        case .table(var sub)?:
            try appendTable(to: &sub, rest, line: line, reader: reader)
            table.set(first, .table(sub), line: table.line(of: first) ?? line)
        case .array(var items)? where items.last?.table != nil:
            var sub = items.removeLast().table!
            try appendTable(to: &sub, rest, line: line, reader: reader)
            items.append(.table(sub))
            table.set(first, .array(items), line: table.line(of: first) ?? line)
        default:
            throw reader.fail("'\(first)' is already a value, not a table", line: line)
        }
    }

    /// `a.b."c d"`: bare keys (letters, digits, `-`, `_`) and quoted keys, joined by dots.
    mutating func key() throws(InputError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let c = current else { throw fail("expected a key") }
            if c == "\"" || c == "'" {
                guard peek(1) != c || peek(2) != c else { throw fail("a key cannot be a multi-line string") }
                parts.append(try string())
            } else {
                var word = ""
                while let c = current, Self.isBare(c) {
                    word.unicodeScalars.append(c)
                    advance()
                }
                guard !word.isEmpty else { throw fail("expected a key, found '\(Character(c))'") }
                parts.append(word)
            }
            skipSpaces()
            guard current == "." else { return parts }
            advance()
        }
    }

    static func isBare(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
    }

    mutating func value() throws(InputError) -> TOMLValue {
        guard let c = current else { throw fail("expected a value") }
        switch c {
        case "\"", "'": return .string(try string())
        case "[":
            advance()
            var items: [TOMLValue] = []
            while true {
                try skipBlank()
                if current == "]" {
                    advance()
                    return .array(items)
                }
                items.append(try value())
                try skipBlank()
                if current == "," {
                    advance()
                    continue
                }
                guard current == "]" else { throw fail("expected ',' or ']' in an array") }
                advance()
                return .array(items)
            }
        case "{":
            advance()
            var table = TOMLTable()
            skipSpaces()
            if current == "}" {
                advance()
                return .table(table)
            }
            while true {
                skipSpaces()
                let at = line
                let k = try key()
                skipSpaces()
                guard current == "=" else { throw fail("expected '=' in an inline table") }
                advance()
                skipSpaces()
                let v = try value()
                try Self.insert(into: &table, k, v, line: at, reader: self)
                skipSpaces()
                if current == "," {
                    advance()
                    continue
                }
                guard current == "}" else { throw fail("expected ',' or '}' in an inline table") }
                advance()
                return .table(table)
            }
        default:
            var word = ""
            while let c = current, !" \t\r\n,]}#".unicodeScalars.contains(c) {
                word.unicodeScalars.append(c)
                advance()
            }
            // A date-time may have one space between date and time.
            if word.count == 10, current == " ", let d = peek(1), ("0"..."9").contains(d) {
                advance()
                while let c = current, !" \t\r\n,]}#".unicodeScalars.contains(c) {
                    word.unicodeScalars.append(c)
                    advance()
                }
            }
            return try scalar(word)
        }
    }

    /// Whitespace, newlines and comments inside an array.
    mutating func skipBlank() throws(InputError) {
        while let c = current {
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                advance()
            } else if c == "#" {
                while let c = current, c != "\n" { advance() }
            } else {
                return
            }
        }
        throw fail("unterminated array: expected ']'")
    }

    func scalar(_ word: String) throws(InputError) -> TOMLValue {
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        case "": throw fail("expected a value")
        default: break
        }
        let digits = word.replacingOccurrences(of: "_", with: "")
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where digits.hasPrefix(prefix) {
            guard let v = Int64(digits.dropFirst(2), radix: radix) else { break }
            return .integer(v)
        }
        if let v = Int64(digits), !word.hasPrefix("_"), !word.hasSuffix("_") { return .integer(v) }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let v = Double(digits) { return .float(v) }
        // Dates and times are kept as text.
        if word.range(
            of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9:.]+([Zz]|[+-][0-9:]+)?)?$|^[0-9]{2}:[0-9]{2}(:[0-9.]+)?$"#,
            options: .regularExpression) != nil
        {
            return .string(word)
        }
        throw fail("'\(word)' is not a TOML value (strings need quotes)")
    }

    static let escapes: [Unicode.Scalar: String] = [
        "n": "\n", "t": "\t", "r": "\r", "b": "\u{8}", "f": "\u{C}", "\"": "\"", "\\": "\\",
    ]

    /// The four string forms: "basic", 'literal', and their multi-line """/''' variants.
    mutating func string() throws(InputError) -> String {
        let quote = current!
        let start = line
        let multi = peek(1) == quote && peek(2) == quote
        advance()
        if multi {
            advance()
            advance()
            // A newline right after the opening quotes is not part of the string.
            if current == "\r", peek(1) == "\n" { advance() }
            if current == "\n" { advance() }
        }
        var out = ""
        while true {
            guard let c = current else {
                throw fail("unterminated string (it starts on line \(start))", line: start)
            }
            if c == quote {
                if !multi {
                    advance()
                    return out
                }
                if peek(1) == quote, peek(2) == quote {
                    advance()
                    advance()
                    advance()
                    // Up to two more quotes belong to the string.
                    for _ in 0..<2 where current == quote {
                        out.unicodeScalars.append(quote)
                        advance()
                    }
                    return out
                }
                out.unicodeScalars.append(c)
                advance()
                continue
            }
            if c == "\n", !multi { throw fail("a string on one line cannot contain a newline") }
            if c == "\\", quote == "\"" {
                advance()
                guard let e = current else { continue }
                if multi, e == " " || e == "\t" || e == "\n" || e == "\r" {
                    // A line-ending backslash drops the newline and the spaces after it.
                    while let w = current, w == " " || w == "\t" || w == "\n" || w == "\r" { advance() }
                    continue
                }
                advance()
                if let plain = Self.escapes[e] {
                    out += plain
                    continue
                }
                switch e {
                case "u", "U":
                    let n = e == "u" ? 4 : 8
                    var hex = ""
                    for _ in 0..<n {
                        if let h = current {
                            hex.unicodeScalars.append(h)
                            advance()
                        }
                    }
                    guard let v = UInt32(hex, radix: 16), let u = Unicode.Scalar(v) else {
                        throw fail("invalid \\\(e) escape '\(hex)'")
                    }
                    out.unicodeScalars.append(u)
                default: throw fail("invalid escape '\\\(Character(e))' in a string")
                }
                continue
            }
            out.unicodeScalars.append(c)
            advance()
        }
    }
}
