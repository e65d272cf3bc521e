import CLibPQ
import Foundation

/// Every field the server (or libpq) reports about a failure.
///
/// `description` is one line for humans; it never contains connection secrets, because
/// messages are scrubbed of the password when the error is created.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The server rejected a statement.
        case server
        /// No connection could be made, or it broke.
        case connection
        /// libpq or this library could not carry out the request.
        case client
    }

    public var kind: Kind
    public var sqlState: String?
    public var severity: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    /// 1-based character offset into the statement text.
    public var position: Int?
    public var internalPosition: Int?
    public var internalQuery: String?
    /// The server's CONTEXT ("where") field.
    public var context: String?
    public var schema: String?
    public var table: String?
    public var column: String?
    public var dataType: String?
    public var constraint: String?
    public var sourceFile: String?
    public var sourceLine: String?
    public var sourceFunction: String?
    /// Set when the connection itself could not be made: where to, password redacted.
    public var connectTarget: String?

    public init(kind: Kind, message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    /// The message, naming the database when the connection could not be made.
    public var line: String { connectTarget.map { "cannot connect to \($0): " + message } ?? message }

    public var description: String {
        var text = ""
        if let severity { text += severity + ": " } else if kind != .server { text += "error: " }
        text += line
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += " — " + detail }
        if let hint { text += " Hint: " + hint }
        return text
    }

    /// True for SQLSTATE class 08 and connection-level failures.
    public var isConnectionFailure: Bool {
        kind == .connection || (sqlState?.hasPrefix("08") ?? false) || sqlState == "57P01"
    }
}

extension PostgresError {
    /// Reads every diagnostic field of a failed result.
    init(result: OpaquePointer, scrubbing secret: [String]) {
        func field(_ code: Int32) -> String? {
            guard let p = PQresultErrorField(result, code) else { return nil }
            return Self.scrub(String(cString: p), secret)
        }
        let primary =
            field(Int32(UInt8(ascii: "M")))
            ?? Self.scrub(String(cString: PQresultErrorMessage(result)), secret).trimmingWhitespace()
        self.init(kind: .server, message: primary.isEmpty ? "unknown server error" : primary)
        sqlState = field(Int32(UInt8(ascii: "C")))
        severity = field(Int32(UInt8(ascii: "V"))) ?? field(Int32(UInt8(ascii: "S")))
        detail = field(Int32(UInt8(ascii: "D")))
        hint = field(Int32(UInt8(ascii: "H")))
        position = field(Int32(UInt8(ascii: "P"))).flatMap { Int($0) }
        internalPosition = field(Int32(UInt8(ascii: "p"))).flatMap { Int($0) }
        internalQuery = field(Int32(UInt8(ascii: "q")))
        context = field(Int32(UInt8(ascii: "W")))
        schema = field(Int32(UInt8(ascii: "s")))
        table = field(Int32(UInt8(ascii: "t")))
        column = field(Int32(UInt8(ascii: "c")))
        dataType = field(Int32(UInt8(ascii: "d")))
        constraint = field(Int32(UInt8(ascii: "n")))
        sourceFile = field(Int32(UInt8(ascii: "F")))
        sourceLine = field(Int32(UInt8(ascii: "L")))
        sourceFunction = field(Int32(UInt8(ascii: "R")))
        if sqlState == nil { kind = .client }
    }

    static func scrub(_ text: String, _ secrets: [String]) -> String {
        secrets.reduce(text) { $0.replacingAll($1, with: "***") }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }

    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
