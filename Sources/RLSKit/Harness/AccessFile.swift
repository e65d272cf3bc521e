import Foundation

/// Declared intent: who may read and write each table and bucket. Expectations of the
/// own-row matrix come from here only, never from what the database happens to do.
///
///     expose public                 # schemas whose RLS tables must be declared
///     table public.posts
///       owner author_id
///       read anyone                 # anyone | signed-in | owner | nobody
///       write owner                 # owner | nobody (insert, update and delete)
///       delete nobody               # per-operation override
///       seed image_path = '{owner}/photo-{n}.png'
///     bucket avatars
///       read public                 # public | anyone | signed-in | owner | nobody
///       write own-folder            # own-folder | nobody
struct AccessFile: Sendable, Equatable {
    public var exposedSchemas: [String] = []
    /// Where each of `exposedSchemas` was named (same order).
    public var exposedLocations: [SourceLocation] = []
    public var tables: [TableIntent] = []
    public var buckets: [BucketIntent] = []
    public var path: String = ""
}

enum ReadAccess: String, Sendable, CaseIterable {
    case anyone, signedIn = "signed-in", owner, nobody, `public`
}

enum WriteAccess: String, Sendable, CaseIterable {
    case owner, nobody, ownFolder = "own-folder"
}

struct TableIntent: Sendable, Equatable {
    public var schema: String
    public var name: String
    public var owner: String = ""
    public var read: ReadAccess?
    public var insert: WriteAccess?
    public var update: WriteAccess?
    public var delete: WriteAccess?
    /// Column → SQL expression; `{owner}` is the owner's uid, `{n}` a number unique in the run.
    public var seeds: [(column: String, expression: String)] = []
    public var location: SourceLocation
    /// Where each setting was written: "owner", "read", "write", "insert", "update", "delete", "seed <column>".
    public var settings: [String: SourceLocation] = [:]

    /// `schema.name`, quoted where needed, in a form an access file accepts back.
    public var qualifiedName: String { SQL.qualified(schema, name) }

    public static func == (a: TableIntent, b: TableIntent) -> Bool {
        a.schema == b.schema && a.name == b.name && a.owner == b.owner && a.read == b.read && a.insert == b.insert
            && a.update == b.update && a.delete == b.delete && a.location == b.location
            && a.seeds.map(\.column) == b.seeds.map(\.column) && a.seeds.map(\.expression) == b.seeds.map(\.expression)
    }
}

struct BucketIntent: Sendable, Equatable {
    public var id: String
    public var read: ReadAccess?
    public var write: WriteAccess?
    public var location: SourceLocation
    /// Where "read" and "write" were written.
    public var settings: [String: SourceLocation] = [:]
}


extension AccessFile {
    /// Parses the whole file or throws its first mistake; nothing is run from a malformed file.
    public static func parse(_ text: String, path: String) throws(InputError) -> AccessFile {
        var file = AccessFile(path: path)
        enum Block { case none, table(Int), bucket(Int) }
        var block = Block.none
        for (i, raw) in TextFile.lines(text).enumerated() {
            let at = SourceLocation(file: path, line: i + 1)
            let line = stripComment(String(raw))
            let words = splitWords(line)
            guard let key = words.first else { continue }
            let indented = raw.first == " " || raw.first == "\t"
            func value(_ allowed: [String]) throws(InputError) -> String {
                guard words.count == 2 else {
                    throw InputError(at, "'\(key)' takes one value: \(allowed.joined(separator: " | "))")
                }
                guard allowed.contains(words[1]) else {
                    throw InputError(at, "unknown \(key) value '\(words[1])': use \(allowed.joined(separator: " | "))")
                }
                return words[1]
            }
            if !indented {
                switch key {
                case "expose":
                    guard words.count > 1 else { throw InputError(at, "'expose' needs schema names, e.g. 'expose public api'") }
                    for w in words.dropFirst() {
                        for part in w.split(separator: ",").map(String.init) where !part.isEmpty {
                            guard let names = nameParts(part), names.count == 1 else {
                                throw InputError(at, "'\(part)' is not a schema name: write it as is, or in \"double quotes\" when it needs them")
                            }
                            file.exposedSchemas.append(names[0])
                            file.exposedLocations.append(at)
                        }
                    }
                    block = .none
                case "table":
                    guard words.count == 2 else { throw InputError(at, "write 'table schema.name' (one table per block; \"double quotes\" around names with spaces or symbols)") }
                    guard let parts = nameParts(words[1]), parts.count <= 2 else {
                        throw InputError(at, "'\(words[1])' is not a table name: write schema.name, with \"double quotes\" around names that need them")
                    }
                    let t = TableIntent(schema: parts.count == 2 ? parts[0] : "public", name: parts.last!, location: at)
                    if let prev = file.tables.first(where: { $0.qualifiedName == t.qualifiedName }) {
                        throw InputError(at, "table \(t.qualifiedName) is declared twice (first at line \(prev.location.line)): merge the blocks")
                    }
                    file.tables.append(t)
                    block = .table(file.tables.count - 1)
                case "bucket":
                    guard words.count == 2 else { throw InputError(at, "write 'bucket name' (one bucket per block)") }
                    if let prev = file.buckets.first(where: { $0.id == words[1] }) {
                        throw InputError(at, "bucket \(words[1]) is declared twice (first at line \(prev.location.line)): merge the blocks")
                    }
                    file.buckets.append(BucketIntent(id: words[1], location: at))
                    block = .bucket(file.buckets.count - 1)
                default:
                    throw InputError(at, "unknown line '\(key)': start a block with 'table', 'bucket' or 'expose' (settings are indented)")
                }
                continue
            }
            /// Each setting once per block: a second one is a conflict or a leftover.
            func once(_ setting: String, _ settings: inout [String: SourceLocation], _ owner: String) throws(InputError) {
                if let prev = settings[setting] {
                    throw InputError(at, "'\(setting)' is already set at line \(prev.line) for \(owner): keep one")
                }
                settings[setting] = at
            }
            switch block {
            case .none:
                throw InputError(at, "indented '\(key)' outside a block: put it under a 'table' or 'bucket' line")
            case .table(let t):
                let what = "table \(file.tables[t].qualifiedName)"
                switch key {
                case "owner":
                    guard words.count == 2, let col = nameParts(words[1]), col.count == 1 else {
                        throw InputError(at, "'owner' takes one column name, e.g. 'owner user_id'")
                    }
                    try once("owner", &file.tables[t].settings, what)
                    file.tables[t].owner = col[0]
                case "read":
                    let v = ReadAccess(rawValue: try value(["anyone", "signed-in", "owner", "nobody"]))
                    try once("read", &file.tables[t].settings, what)
                    file.tables[t].read = v
                case "write":
                    let w = WriteAccess(rawValue: try value(["owner", "nobody"]))
                    try once("write", &file.tables[t].settings, what)
                    // insert/update/delete lines override 'write', whichever comes first.
                    if file.tables[t].settings["insert"] == nil { file.tables[t].insert = w }
                    if file.tables[t].settings["update"] == nil { file.tables[t].update = w }
                    if file.tables[t].settings["delete"] == nil { file.tables[t].delete = w }
                case "insert", "update", "delete":
                    let w = WriteAccess(rawValue: try value(["owner", "nobody"]))
                    try once(key, &file.tables[t].settings, what)
                    switch key {
                    case "insert": file.tables[t].insert = w
                    case "update": file.tables[t].update = w
                    default: file.tables[t].delete = w
                    }
                case "seed":
                    let usage = "write 'seed column = SQL expression', e.g. seed image_path = '{owner}/a.png'"
                    let rest = line.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(4).drop(while: { $0 == " " || $0 == "\t" })
                    guard let (column, after) = leadingName(rest) else { throw InputError(at, usage) }
                    let tail = after.drop(while: { $0 == " " || $0 == "\t" })
                    guard tail.first == "=" else { throw InputError(at, usage) }
                    let expr = tail.dropFirst().trimmingCharacters(in: .whitespaces)
                    guard !expr.isEmpty else { throw InputError(at, usage) }
                    if let problem = expressionProblem(expr) {
                        throw InputError(at, "seed \(column): the SQL expression \(problem): fix the expression")
                    }
                    try once("seed \(column)", &file.tables[t].settings, what)
                    file.tables[t].seeds.append((column, expr))
                default:
                    throw InputError(at, "unknown table setting '\(key)': use owner, read, write, insert, update, delete or seed")
                }
            case .bucket(let b):
                let what = "bucket \(file.buckets[b].id)"
                switch key {
                case "read":
                    let v = ReadAccess(rawValue: try value(["public", "anyone", "signed-in", "owner", "nobody"]))
                    try once("read", &file.buckets[b].settings, what)
                    file.buckets[b].read = v
                case "write":
                    let v = WriteAccess(rawValue: try value(["own-folder", "nobody"]))
                    try once("write", &file.buckets[b].settings, what)
                    file.buckets[b].write = v
                default: throw InputError(at, "unknown bucket setting '\(key)': use read or write")
                }
            }
        }
        for t in file.tables {
            if t.owner.isEmpty { throw InputError(t.location, "table \(t.qualifiedName) has no 'owner' line: name the column holding the owner's user id") }
            if t.read == nil { throw InputError(t.location, "table \(t.qualifiedName) has no 'read' line: add 'read anyone|signed-in|owner|nobody'") }
            if t.insert == nil || t.update == nil || t.delete == nil {
                throw InputError(t.location, "table \(t.qualifiedName) does not say who may write: add 'write owner|nobody' (or insert/update/delete lines)")
            }
        }
        for b in file.buckets {
            if b.read == nil { throw InputError(b.location, "bucket \(b.id) has no 'read' line: add 'read public|anyone|signed-in|owner|nobody'") }
            if b.write == nil { throw InputError(b.location, "bucket \(b.id) has no 'write' line: add 'write own-folder|nobody'") }
        }
        if file.tables.isEmpty && file.buckets.isEmpty {
            throw InputError(SourceLocation(file: path, line: 1),
                             "this access file declares no table or bucket, so it would test nothing: add a 'table schema.name' or 'bucket name' block")
        }
        return file
    }

    /// Words separated by spaces or tabs; spaces inside "double quotes" do not separate.
    static func splitWords(_ line: String) -> [String] {
        var out: [String] = []
        var word = ""
        var quoted = false
        for c in line {
            if c == "\"" { quoted.toggle() }
            if !quoted && (c == " " || c == "\t") {
                if !word.isEmpty { out.append(word); word = "" }
                continue
            }
            word.append(c)
        }
        if !word.isEmpty { out.append(word) }
        return out
    }

    /// `schema.name` split into its parts, each plain or in "double quotes" (`""` is a quote
    /// inside); nil when malformed (an empty part, an unclosed quote, text after a quote).
    static func nameParts(_ text: String) -> [String]? {
        var parts: [String] = []
        var rest = Substring(text)
        while true {
            guard let (part, after) = leadingName(rest) else { return nil }
            parts.append(part)
            if after.isEmpty { return parts }
            guard after.first == "." else { return nil }
            rest = after.dropFirst()
        }
    }

    /// One name at the start of `text` (plain up to a space, `.`, `=` or `"`, or quoted), and what follows.
    static func leadingName(_ text: Substring) -> (String, Substring)? {
        var name = ""
        if text.first == "\"" {
            var i = text.index(after: text.startIndex)
            while i < text.endIndex {
                if text[i] == "\"" {
                    let next = text.index(after: i)
                    if next < text.endIndex, text[next] == "\"" { name.append("\""); i = text.index(after: next); continue }
                    return name.isEmpty ? nil : (name, text[next...])
                }
                name.append(text[i])
                i = text.index(after: i)
            }
            return nil   // unclosed quote
        }
        let end = text.firstIndex { $0 == " " || $0 == "\t" || $0 == "." || $0 == "=" || $0 == "\"" } ?? text.endIndex
        name = String(text[..<end])
        return name.isEmpty ? nil : (name, text[end...])
    }

    /// What is wrong with a seed expression that can be told without a database: an unclosed
    /// quote or comment, unbalanced parentheses, or a `;` (one expression, not statements).
    /// Read both ways a server may lex it: with standard_conforming_strings off, `'a\'b'` is
    /// one string, and what one reading keeps inside quotes the other might run.
    static func expressionProblem(_ expr: String) -> String? {
        let s = Array(expr.unicodeScalars)
        if s.contains("\u{0}") { return "contains a NUL byte, which PostgreSQL cannot accept" }
        if let p = expressionProblem(s, standardConformingStrings: true) { return p }
        return expressionProblem(s, standardConformingStrings: false).map {
            $0 + " when read with standard_conforming_strings off: write a string holding a backslash as E'…' with the backslash doubled"
        }
    }

    static func expressionProblem(_ s: [Unicode.Scalar], standardConformingStrings: Bool) -> String? {
        var depth = 0
        for tok in SQLLexer.tokens(s, standardConformingStrings: standardConformingStrings) {
            switch tok.kind {
            case .string where !tok.closed: return "has an unterminated quoted string"
            case .quotedName where !tok.closed: return "has an unterminated quoted name"
            case .dollarString where !tok.closed: return "has an unterminated dollar-quoted string"
            case .blockComment where !tok.closed: return "has an unterminated /* comment"
            case .lineComment: return "contains a '--' comment (it would swallow the rest of the row)"
            case .punctuation:
                switch s[tok.start] {
                case "(": depth += 1
                case ")":
                    depth -= 1
                    if depth < 0 { return "has a ')' without its '('" }
                case ";": return "contains ';' (write one expression, not statements)"
                default: break
                }
            default: break
            }
        }
        return depth > 0 ? "has a '(' without its ')'" : nil
    }

    /// `#` starts a comment outside quoted strings, names and dollar quotes, as SQLLexer finds them.
    static func stripComment(_ line: String) -> String {
        let s = Array(line.unicodeScalars)
        var cut = s.count
        for tok in SQLLexer.tokens(s) where tok.kind == .op || tok.kind == .other {
            if let k = s[tok.start..<tok.end].firstIndex(of: "#") { cut = k; break }
        }
        return String(String.UnicodeScalarView(s[..<cut])).trimmingCharacters(in: .whitespaces)
    }
}
