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
public struct AccessFile: Sendable, Equatable {
    public var exposedSchemas: [String] = []
    public var tables: [TableIntent] = []
    public var buckets: [BucketIntent] = []
    public var path: String = ""
}

public enum ReadAccess: String, Sendable, CaseIterable {
    case anyone, signedIn = "signed-in", owner, nobody, `public`
}

public enum WriteAccess: String, Sendable, CaseIterable {
    case owner, nobody, ownFolder = "own-folder"
}

public struct TableIntent: Sendable, Equatable {
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

    public var qualifiedName: String { "\(schema).\(name)" }

    public static func == (a: TableIntent, b: TableIntent) -> Bool {
        a.schema == b.schema && a.name == b.name && a.owner == b.owner && a.read == b.read && a.insert == b.insert
            && a.update == b.update && a.delete == b.delete && a.location == b.location
            && a.seeds.map(\.column) == b.seeds.map(\.column) && a.seeds.map(\.expression) == b.seeds.map(\.expression)
    }
}

public struct BucketIntent: Sendable, Equatable {
    public var id: String
    public var read: ReadAccess?
    public var write: WriteAccess?
    public var location: SourceLocation
}

/// A mistake in a file the user wrote: one line, `file:line: what, what to do`.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }
    public var description: String { "\(location): \(message)" }
}

extension AccessFile {
    /// Parses the whole file or throws its first mistake; nothing is run from a malformed file.
    public static func parse(_ text: String, path: String) throws(InputError) -> AccessFile {
        var file = AccessFile(path: path)
        enum Block { case none, table(Int), bucket(Int) }
        var block = Block.none
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let at = SourceLocation(file: path, line: i + 1)
            let line = stripComment(String(raw))
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
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
                    file.exposedSchemas += words.dropFirst().map { $0.trimmingCharacters(in: [","]) }
                    block = .none
                case "table":
                    guard words.count == 2 else { throw InputError(at, "write 'table schema.name' (one table per block)") }
                    let parts = words[1].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                    guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
                        throw InputError(at, "'\(words[1])' is not a table name: write schema.name")
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
            switch block {
            case .none:
                throw InputError(at, "indented '\(key)' outside a block: put it under a 'table' or 'bucket' line")
            case .table(let t):
                switch key {
                case "owner":
                    guard words.count == 2 else { throw InputError(at, "'owner' takes one column name, e.g. 'owner user_id'") }
                    file.tables[t].owner = words[1]
                case "read":
                    file.tables[t].read = ReadAccess(rawValue: try value(["anyone", "signed-in", "owner", "nobody"]))
                case "write":
                    let w = WriteAccess(rawValue: try value(["owner", "nobody"]))
                    file.tables[t].insert = w; file.tables[t].update = w; file.tables[t].delete = w
                case "insert": file.tables[t].insert = WriteAccess(rawValue: try value(["owner", "nobody"]))
                case "update": file.tables[t].update = WriteAccess(rawValue: try value(["owner", "nobody"]))
                case "delete": file.tables[t].delete = WriteAccess(rawValue: try value(["owner", "nobody"]))
                case "seed":
                    let rest = line.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(4)
                    guard let eq = rest.firstIndex(of: "=") else {
                        throw InputError(at, "write 'seed column = SQL expression', e.g. seed image_path = '{owner}/a.png'")
                    }
                    let column = rest[..<eq].trimmingCharacters(in: .whitespaces)
                    let expr = rest[rest.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                    guard !column.isEmpty, !column.contains(" "), !expr.isEmpty else {
                        throw InputError(at, "write 'seed column = SQL expression', e.g. seed image_path = '{owner}/a.png'")
                    }
                    file.tables[t].seeds.append((column, expr))
                default:
                    throw InputError(at, "unknown table setting '\(key)': use owner, read, write, insert, update, delete or seed")
                }
            case .bucket(let b):
                switch key {
                case "read": file.buckets[b].read = ReadAccess(rawValue: try value(["public", "anyone", "signed-in", "owner", "nobody"]))
                case "write": file.buckets[b].write = WriteAccess(rawValue: try value(["own-folder", "nobody"]))
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
        return file
    }

    /// `#` starts a comment outside single quotes.
    static func stripComment(_ line: String) -> String {
        var inQuote = false
        var out = ""
        for c in line {
            if c == "'" { inQuote.toggle() }
            if c == "#" && !inQuote { break }
            out.append(c)
        }
        return out.trimmingCharacters(in: .whitespaces)
    }
}
