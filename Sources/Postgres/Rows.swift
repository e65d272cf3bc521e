import Foundation

/// A decoding mistake: which column, which Swift type, and what was there.
public struct RowDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var column: String
    public var type: String
    public var reason: String
    public var description: String { "cannot read column \"\(column)\" as \(type): \(reason)" }
}

/// A value that can be read from a column's text form.
public protocol PostgresDecodable {
    /// `text` is nil for SQL NULL. Non-optional types throw on NULL.
    static func decode(text: String?, type: PostgresType, column: String) throws -> Self
}

/// Types whose NULL is an error, decoded from non-NULL text.
public protocol PostgresTextDecodable: PostgresDecodable {
    init?(postgresText: String, type: PostgresType)
}

extension PostgresTextDecodable {
    public static func decode(text: String?, type: PostgresType, column: String) throws -> Self {
        guard let text else {
            throw RowDecodingError(
                column: column, type: "\(Self.self)", reason: "value is NULL (read it as an Optional)")
        }
        guard let v = Self(postgresText: text, type: type) else {
            // Never the value itself: a column may hold a secret, and errors reach logs.
            throw RowDecodingError(
                column: column, type: "\(Self.self)",
                reason: "a value of \(text.count) characters of type oid \(type.rawValue) is not a valid \(Self.self)")
        }
        return v
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(text: String?, type: PostgresType, column: String) throws -> Wrapped? {
        guard let text else { return nil }
        return try Wrapped.decode(text: text, type: type, column: column)
    }
}

extension String: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) { self = postgresText }
}
extension Int: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) { self.init(postgresText) }
}
extension Int64: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) { self.init(postgresText) }
}
extension Int32: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) { self.init(postgresText) }
}
extension Double: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) {
        switch postgresText {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default: self.init(postgresText)
        }
    }
}
extension Bool: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}
extension UUID: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) { self.init(uuidString: postgresText) }
}
extension Date: PostgresTextDecodable {
    public init?(postgresText: String, type: PostgresType) {
        guard let d = PostgresTimestamp.parse(postgresText) else { return nil }
        self = d
    }
}
extension Data: PostgresTextDecodable {
    /// bytea (hex form) decodes to its bytes; json, jsonb and text to their UTF-8 bytes.
    public init?(postgresText: String, type: PostgresType) {
        if type == .bytea {
            guard postgresText.hasPrefix("\\x") else { return nil }
            let hex = Array(postgresText.utf8.dropFirst(2))
            guard hex.count % 2 == 0 else { return nil }
            func nibble(_ c: UInt8) -> UInt8? {
                switch c {
                case 48...57: return c - 48
                case 97...102: return c - 87
                case 65...70: return c - 55
                default: return nil
                }
            }
            var bytes = [UInt8]()
            bytes.reserveCapacity(hex.count / 2)
            var i = 0
            while i < hex.count {
                guard let h = nibble(hex[i]), let l = nibble(hex[i + 1]) else { return nil }
                bytes.append(h << 4 | l)
                i += 2
            }
            self = Data(bytes)
        } else {
            self = Data(postgresText.utf8)
        }
    }
}
extension Array: PostgresDecodable, PostgresTextDecodable where Element == String {
    /// A one-dimensional text[] (or varchar[], name[]) literal; NULL elements are not allowed.
    public init?(postgresText: String, type: PostgresType) {
        guard let parsed = PostgresArrayParser.parse(postgresText), !parsed.contains(where: { $0 == nil }) else {
            return nil
        }
        self = parsed.map { $0! }
    }
}

enum PostgresArrayParser {
    /// Parses `{a,"b c",NULL}`; nil for anything that is not a one-dimensional array literal.
    static func parse(_ text: String) -> [String?]? {
        let u = Array(text.utf8)
        guard u.first == UInt8(ascii: "{"), u.last == UInt8(ascii: "}") else { return nil }
        if u.count == 2 { return [] }
        var out: [String?] = []
        var i = 1
        let end = u.count - 1
        while i < end {
            var bytes: [UInt8] = []
            var quoted = false
            if u[i] == UInt8(ascii: "\"") {
                quoted = true
                i += 1
                while i < end, u[i] != UInt8(ascii: "\"") {
                    if u[i] == UInt8(ascii: "\\") {
                        i += 1
                        guard i < end else { return nil }
                    }
                    bytes.append(u[i])
                    i += 1
                }
                guard i < end else { return nil }
                i += 1
            } else {
                while i < end, u[i] != UInt8(ascii: ",") {
                    if u[i] == UInt8(ascii: "{") || u[i] == UInt8(ascii: "\"") { return nil }
                    if u[i] == UInt8(ascii: "\\") {
                        i += 1
                        guard i < end else { return nil }
                    }
                    bytes.append(u[i])
                    i += 1
                }
            }
            let s = String(decoding: bytes, as: UTF8.self)
            out.append(!quoted && s == "NULL" ? nil : s)
            if i < end {
                guard u[i] == UInt8(ascii: ",") else { return nil }
                i += 1
                if i == end { return nil }
            }
        }
        return out
    }
}

/// Column metadata shared by all rows of a result.
public struct PostgresColumn: Sendable, Equatable {
    public var name: String
    public var type: PostgresType
}

final class ColumnIndex: Sendable {
    let columns: [PostgresColumn]
    init(_ columns: [PostgresColumn]) { self.columns = columns }

    /// First column of that name. A scan: results are narrow, and building a dictionary for
    /// every result costs more than it saves.
    func index(of name: String) -> Int? { columns.firstIndex { $0.name == name } }
}

/// One row, copied out of libpq: safe to keep and to send across tasks.
public struct PostgresRow: Sendable {
    let index: ColumnIndex
    /// Each column's text form; nil is SQL NULL.
    public let values: [String?]

    public var columns: [PostgresColumn] { index.columns }
    public var count: Int { values.count }

    /// True when the column holds SQL NULL.
    public func isNull(_ i: Int) -> Bool { values[i] == nil }

    public func decode<T: PostgresDecodable>(_ i: Int, as type: T.Type = T.self) throws -> T {
        guard i >= 0, i < values.count else {
            throw RowDecodingError(
                column: "#\(i)", type: "\(T.self)", reason: "no such column (row has \(values.count))")
        }
        let c = index.columns[i]
        return try T.decode(text: values[i], type: c.type, column: c.name)
    }

    public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let i = index.index(of: name) else {
            throw RowDecodingError(column: name, type: "\(T.self)", reason: "no such column")
        }
        return try decode(i, as: type)
    }

    /// Decodes a json/jsonb column into a Decodable value.
    public func decodeJSON<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        let data: Data = try decode(name)
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw RowDecodingError(
                column: name, type: "\(T.self)", reason: "invalid JSON for this type\(Self.codingPath(error))")
        }
    }

    /// Where in the document decoding failed (keys only, never values).
    static func codingPath(_ error: Error) -> String {
        let path: [CodingKey]
        switch error as? DecodingError {
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .keyNotFound(_, let c)?, .dataCorrupted(let c)?:
            path = c.codingPath
        default: path = []
        }
        return path.isEmpty
            ? "" : " (at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + ")"
    }

    /// The raw text of a column (nil for NULL or unknown column).
    public subscript(_ name: String) -> String? {
        guard let i = index.index(of: name) else { return nil }
        return values[i]
    }
}

/// What one statement produced.
public struct QueryResult: Sendable {
    public let columns: [PostgresColumn]
    public let rows: [PostgresRow]
    /// The command tag, e.g. `INSERT 0 1`.
    public let commandTag: String
    /// Rows affected by INSERT/UPDATE/DELETE/MERGE/SELECT/COPY, when the server reports it.
    public let affectedRows: Int?

    public init(columns: [PostgresColumn], rows: [PostgresRow], commandTag: String, affectedRows: Int?) {
        self.columns = columns
        self.rows = rows
        self.commandTag = commandTag
        self.affectedRows = affectedRows
    }

    public var first: PostgresRow? { rows.first }
}
