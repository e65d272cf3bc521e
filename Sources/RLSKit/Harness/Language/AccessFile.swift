import Foundation

/// Declared intent: who may read and write each table and bucket. Expectations of the
/// own-row matrix come from here only, never from what the database happens to do.
///
///     expose public                 # schemas whose RLS tables must be declared
///     header x-tenant-id = {uid}    # sent by every signed-in user with each request
///     function public.get_team(uuid) callable-by members   # for the function probe
///     table public.posts
///       owner author_id
///       read anyone                 # a `who`: anyone | signed-in | owner | members | a role | nobody
///       write owner                 # insert, update and delete
///       delete nobody               # per-operation override
///       seed image_path = '{owner}/photo-{n}.png'
///     members public.team_members   # a membership table: access through groups
///       group team_id
///       user user_id
///     role admin
///       claim app_metadata.role = admin
///     bucket avatars                # settings: AccessFile+Bucket.swift
///       read public                 # public, or a who
///       write own-folder            # own-folder, or a who; 'ownership group' for team folders
struct AccessFile: Sendable, Equatable {
    var exposedSchemas: [String] = []
    /// Where each of `exposedSchemas` was named (same order).
    var exposedLocations: [SourceLocation] = []
    var tables: [TableIntent] = []
    var memberships: [MembersIntent] = []
    var roles: [RoleIntent] = []
    var buckets: [BucketIntent] = []
    /// Headers the callers send with every Data API request (`header name = value`).
    var headers: [APIHeader] = []
    /// Who may call each SECURITY DEFINER function the probe calls (`function … callable-by …`).
    var functions: [FunctionIntent] = []
    var path: String = ""
}

struct TableIntent: Sendable, Equatable {
    var schema: String
    var name: String
    /// The column holding the owner's user id; empty for tables without one (catalogs, service tables).
    var owner: String = ""
    /// `owner shop_id through public.shops`: the row's owner is that of the row `owner` points at
    /// (a declared table with its own `owner` line); empty when `owner` holds the user id itself.
    var ownerThrough: String = ""
    /// The column holding the row's group (through a `members` block); empty when rows have none.
    var group: String = ""
    /// `group project_id through public.projects`: the row's group is that of the row it points at.
    var through: String = ""
    var read: Who?
    var insert: Who?
    var update: Who?
    var delete: Who?
    /// Who may move a row into another group (default: who may update it and insert there).
    var move: Who?
    /// Columns no API caller may set on a row it writes (is_admin, plan, balance…).
    var protected: [String] = []
    /// Column → SQL expression; `{owner}` is the owner's uid, `{n}` a number unique in the run.
    var seeds: [(column: String, expression: String)] = []
    var location: SourceLocation
    /// Where each setting was written: "owner", "read", "write", "insert", "update", "delete", "seed <column>".
    var settings: [String: SourceLocation] = [:]

    /// `schema.name`, quoted where needed, in a form an access file accepts back.
    var qualifiedName: String { SQL.qualified(schema, name) }

    static func == (a: TableIntent, b: TableIntent) -> Bool {
        a.schema == b.schema && a.name == b.name && a.owner == b.owner && a.ownerThrough == b.ownerThrough
            && a.group == b.group && a.read == b.read
            && a.insert == b.insert
            && a.update == b.update && a.delete == b.delete && a.location == b.location
            && a.seeds.map(\.column) == b.seeds.map(\.column) && a.seeds.map(\.expression) == b.seeds.map(\.expression)
    }
}

/// A membership table: a user belongs to a group, optionally with a role.
struct MembersIntent: Sendable, Equatable {
    var schema: String
    var name: String
    var groupColumn = ""
    var userColumn = ""
    var roleColumn = ""
    /// Role values, the group owner's first and the plain member's last.
    var roles: [String] = []
    var read: Who?
    /// Who adds others to a group, removes others, changes others' roles; whether a member may leave.
    var add: Who?
    var remove: Who?
    var leave: Who?
    var changeRole: Who?
    var location: SourceLocation
    var settings: [String: SourceLocation] = [:]

    /// Membership given by a claim the service sets (app_metadata.org_id) instead of a table;
    /// `roleClaimPath` holds the member's role the same way.
    var claimPath: [String] = []
    var roleClaimPath: [String] = []
    var byClaim: Bool { !claimPath.isEmpty }

    var qualifiedName: String {
        byClaim ? "claim " + claimPath.joined(separator: ".") : SQL.qualified(schema, name)
    }

    static func == (a: MembersIntent, b: MembersIntent) -> Bool {
        a.qualifiedName == b.qualifiedName && a.groupColumn == b.groupColumn && a.userColumn == b.userColumn
            && a.roleColumn == b.roleColumn && a.roles == b.roles && a.read == b.read && a.add == b.add
            && a.remove == b.remove && a.leave == b.leave && a.changeRole == b.changeRole && a.location == b.location
            && a.roleClaimPath == b.roleClaimPath
    }
}

/// A role the platform gives through a JWT claim the user cannot write: `app_metadata.<key>`
/// (set by the service) or a top-level claim (added by the custom access-token hook).
struct RoleIntent: Sendable, Equatable {
    static func == (a: RoleIntent, b: RoleIntent) -> Bool {
        a.name == b.name && a.claimPath == b.claimPath && a.value == b.value && a.rowTable == b.rowTable
            && a.rowUserColumn == b.rowUserColumn && a.rowValues.map(\.column) == b.rowValues.map(\.column)
            && a.rowValues.map(\.expression) == b.rowValues.map(\.expression) && a.location == b.location
    }

    var name: String
    /// The claim's path in the JWT, e.g. ["app_metadata", "role"] or ["user_role"].
    var claimPath: [String] = []
    /// The claim's value as JSON text: "\"admin\"", "true", "3".
    var value: String = ""
    /// Or a row in a role table: `row public.user_roles user_id, role = 'admin'` (table, the
    /// user's column, then `column = SQL value` pairs).
    var rowSchema: String = ""
    var rowName: String = ""
    var rowTable: String { rowName.isEmpty ? "" : SQL.qualified(rowSchema, rowName) }
    var rowUserColumn: String = ""
    var rowValues: [(column: String, expression: String)] = []
    var byRow: Bool { !rowTable.isEmpty }
    var location: SourceLocation
    var settings: [String: SourceLocation] = [:]
}

extension AccessFile {
    /// Parses the whole file or throws its first mistake; nothing is run from a malformed file.
    static func parse(_ text: String, path: String) throws(InputError) -> AccessFile {
        var parser = Parser(file: AccessFile(path: path))
        for (i, raw) in TextFile.lines(text).enumerated() {
            let at = SourceLocation(file: path, line: i + 1)
            if let problem = TextFile.nulProblem(raw) { throw InputError(at, problem) }
            try parser.line(String(raw), at: at)
        }
        return try parser.finish()
    }

    /// Words separated by spaces or tabs; spaces inside "double quotes" (names) and 'single
    /// quotes' (values) do not separate.
    static func splitWords(_ line: String) -> [String] {
        var out: [String] = []
        var word = ""
        var quote: Character?
        for c in line {
            if c == "\"" || c == "'" {
                if quote == nil { quote = c } else if quote == c { quote = nil }
            }
            if quote == nil && (c == " " || c == "\t") {
                if !word.isEmpty {
                    out.append(word)
                    word = ""
                }
                continue
            }
            word.append(c)
        }
        if !word.isEmpty { out.append(word) }
        return out
    }

    /// `text` cut at the commas outside quotes, dollar quotes and parentheses (`'a,b', f(x, y)`
    /// is two parts), as the SQL lexer reads it.
    static func splitTopLevel(_ text: Substring) -> [Substring] {
        let s = Array(text.unicodeScalars)
        var cuts: [Int] = []
        var depth = 0
        for tok in SQLLexer.tokens(s) where tok.kind == .punctuation {
            switch s[tok.start] {
            case "(", "[": depth += 1
            case ")", "]": depth = max(0, depth - 1)
            case "," where depth == 0: cuts.append(tok.start)
            default: break
            }
        }
        var out: [Substring] = []
        let scalars = text.unicodeScalars
        var from = text.startIndex
        var at = scalars.startIndex
        var position = 0
        for cut in cuts {
            at = scalars.index(at, offsetBy: cut - position)
            position = cut
            out.append(text[from..<at])
            from = scalars.index(after: at)
        }
        out.append(text[from...])
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
                    if next < text.endIndex, text[next] == "\"" {
                        name.append("\"")
                        i = text.index(after: next)
                        continue
                    }
                    return name.isEmpty ? nil : (name, text[next...])
                }
                name.append(text[i])
                i = text.index(after: i)
            }
            return nil  // unclosed quote
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
            $0
                + " when read with standard_conforming_strings off: write a string holding a backslash as E'…' with the backslash doubled"
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
            if let k = s[tok.start..<tok.end].firstIndex(of: "#") {
                cut = k
                break
            }
        }
        return String(String.UnicodeScalarView(s[..<cut])).trimmingCharacters(in: .whitespaces)
    }
}

extension AccessFile {
    /// Only the file's `expose` lines, read by the parser's own rule: what the project says
    /// the Data API serves, for commands that do not run the file (audit, snapshot, init).
    /// Other lines are not checked here; they are when the file runs.
    static func exposure(_ text: String, path: String) throws(InputError) -> AccessFile {
        var parser = Parser(file: AccessFile(path: path))
        for (i, raw) in TextFile.lines(text).enumerated() {
            let at = SourceLocation(file: path, line: i + 1)
            guard raw.first != " ", raw.first != "\t", TextFile.nulProblem(raw) == nil else { continue }
            let text = stripComment(String(raw))
            let words = splitWords(text)
            guard words.first == "expose" else { continue }
            try parser.blockLine(Parser.Line(words: words, text: text, at: at))
        }
        return parser.file
    }
}
