import Foundation

/// A type OID as the server reports it. Only the ones this library decodes are named.
public struct PostgresType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let bool = PostgresType(rawValue: 16)
    public static let bytea = PostgresType(rawValue: 17)
    public static let name = PostgresType(rawValue: 19)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let oid = PostgresType(rawValue: 26)
    public static let json = PostgresType(rawValue: 114)
    public static let float4 = PostgresType(rawValue: 700)
    public static let float8 = PostgresType(rawValue: 701)
    public static let varchar = PostgresType(rawValue: 1043)
    public static let timestamp = PostgresType(rawValue: 1114)
    public static let timestamptz = PostgresType(rawValue: 1184)
    public static let numeric = PostgresType(rawValue: 1700)
    public static let uuid = PostgresType(rawValue: 2950)
    public static let jsonb = PostgresType(rawValue: 3802)
    public static let textArray = PostgresType(rawValue: 1009)
    public static let varcharArray = PostgresType(rawValue: 1015)
    public static let nameArray = PostgresType(rawValue: 1003)
    public static let unknown = PostgresType(rawValue: 0)
}

/// A value that can be bound as a statement parameter (sent in text format).
public protocol PostgresEncodable: Sendable {
    /// The text form; nil sends SQL NULL.
    var postgresText: String? { get }
    /// The type to declare, or `.unknown` to let the server infer it from context.
    static var postgresType: PostgresType { get }
}

extension PostgresEncodable {
    public static var postgresType: PostgresType { .unknown }
}

extension String: PostgresEncodable {
    public var postgresText: String? { self }
}
extension Substring: PostgresEncodable {
    public var postgresText: String? { String(self) }
}
extension Int: PostgresEncodable {
    public var postgresText: String? { String(self) }
    public static var postgresType: PostgresType { .int8 }
}
extension Int64: PostgresEncodable {
    public var postgresText: String? { String(self) }
    public static var postgresType: PostgresType { .int8 }
}
extension Int32: PostgresEncodable {
    public var postgresText: String? { String(self) }
    public static var postgresType: PostgresType { .int4 }
}
extension Double: PostgresEncodable {
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return "\(self)"
    }
    public static var postgresType: PostgresType { .float8 }
}
extension Bool: PostgresEncodable {
    public var postgresText: String? { self ? "t" : "f" }
    public static var postgresType: PostgresType { .bool }
}
extension UUID: PostgresEncodable {
    public var postgresText: String? { uuidString.lowercased() }
    public static var postgresType: PostgresType { .uuid }
}
extension Date: PostgresEncodable {
    public var postgresText: String? { PostgresTimestamp.format(self) }
    public static var postgresType: PostgresType { .timestamptz }
}
extension Data: PostgresEncodable {
    /// bytea in hex form.
    public var postgresText: String? {
        var s = "\\x"
        s.reserveCapacity(2 + count * 2)
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 2)
        for b in self {
            bytes.append(digits[Int(b >> 4)])
            bytes.append(digits[Int(b & 0xF)])
        }
        s += String(decoding: bytes, as: UTF8.self)
        return s
    }
    public static var postgresType: PostgresType { .bytea }
}
extension Array: PostgresEncodable where Element == String {
    /// A text[] literal; every element quoted and escaped.
    public var postgresText: String? {
        "{"
            + map { "\"" + $0.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
    public static var postgresType: PostgresType { .textArray }
}
extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresText: String? { self.flatMap { $0.postgresText } }
    public static var postgresType: PostgresType { Wrapped.postgresType }
}

/// JSON text bound as `jsonb`.
public struct JSONParameter: PostgresEncodable {
    public let text: String
    public init(text: String) { self.text = text }
    public init<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }
    public var postgresText: String? { text }
    public static var postgresType: PostgresType { .jsonb }
}

enum PostgresTimestamp {
    static func format(_ date: Date) -> String {
        // Microsecond precision, UTC, ISO form the server always accepts.
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let seconds = Int64((micros / 1_000_000).rounded(.down))
        let frac = Int64(micros) - seconds * 1_000_000
        var t = time_t(seconds)
        var tmv = tm()
        gmtime_r(&t, &tmv)
        func pad(_ v: Int32, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        let fracText = String(frac)
        return "\(pad(tmv.tm_year + 1900, 4))-\(pad(tmv.tm_mon + 1, 2))-\(pad(tmv.tm_mday, 2)) "
            + "\(pad(tmv.tm_hour, 2)):\(pad(tmv.tm_min, 2)):\(pad(tmv.tm_sec, 2))."
            + String(repeating: "0", count: 6 - fracText.count) + fracText + "+00"
    }

    /// Parses the ISO output of timestamptz: `2024-01-02 03:04:05.123456+05:30`.
    static func parse(_ text: String) -> Date? {
        let u = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= u.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                let c = u[i]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard u.count >= 19, let year = num(0, 4), u[4] == 45, let month = num(5, 2), u[7] == 45,
            let day = num(8, 2), u[10] == 32 || u[10] == 84, let hour = num(11, 2), u[13] == 58,
            let minute = num(14, 2), u[16] == 58, let second = num(17, 2)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < u.count, u[i] == 46 {
            i += 1
            var scale = 0.1
            while i < u.count, u[i] >= 48, u[i] <= 57 {
                fraction += Double(u[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < u.count, u[i] == 43 || u[i] == 45 {
            let sign = u[i] == 45 ? -1 : 1
            i += 1
            guard let oh = num(i, 2) else { return nil }
            i += 2
            var om = 0
            var os = 0
            if i < u.count, u[i] == 58, let m = num(i + 1, 2) {
                om = m
                i += 3
            }
            if i < u.count, u[i] == 58, let s = num(i + 1, 2) {
                os = s
                i += 3
            }
            offset = sign * (oh * 3600 + om * 60 + os)
        } else if i < u.count, u[i] == 90 {
            i += 1
        }
        guard i == u.count else { return nil }
        // Days from civil (proleptic Gregorian), no calendar object needed.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        let secs = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(secs) + fraction)
    }
}
