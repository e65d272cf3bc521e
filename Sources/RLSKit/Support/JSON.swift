import Foundation

/// A JSON value with ordered object keys, written by hand so that output is byte-stable and
/// escaping is exact (control characters, quotes, backslashes, U+2028/2029, bidi controls).
@_spi(CLI) public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.rendered() == b.rendered() }

    /// `{"a": …}` from a dictionary, keys sorted.
    static func sorted(_ dict: [String: String]) -> JSON {
        .object(dict.keys.sorted().map { ($0, .string(dict[$0]!)) })
    }

    static func optional(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }

    /// An object whose keys are written in sorted order, whatever order they were given in.
    static func sortedObject(_ pairs: [(String, JSON)]) -> JSON {
        .object(pairs.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
    }

    /// Reads JSON text (objects' keys sorted). Throws on text that is not JSON.
    public init(parsing text: String) throws {
        self = Self.from(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
    }

    private static func from(_ value: Any) -> JSON {
        switch value {
        case let d as [String: Any]: return sortedObject(d.map { ($0.key, from($0.value)) })
        case let a as [Any]: return .array(a.map(from))
        case let s as String: return .string(s)
        case let b as Bool where type(of: value) == Bool.self: return .bool(b)
        case let n as NSNumber:
            // Foundation may box booleans and integers alike: its type code tells them apart.
            let code = String(cString: n.objCType)
            if code == "c" || code == "B" { return .bool(n.boolValue) }
            if ["d", "f"].contains(code) { return .double(n.doubleValue) }
            return .int(n.intValue)
        default: return .null
        }
    }

    /// The object's value for `key`.
    public subscript(_ key: String) -> JSON? {
        if case .object(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    /// Top-level keys of `other` replace this object's, the rest kept; keys sorted.
    func merging(_ other: JSON) -> JSON {
        guard case .object(let mine) = self, case .object(let theirs) = other else { return self }
        let replaced = Set(theirs.map(\.0))
        return Self.sortedObject(mine.filter { !replaced.contains($0.0) } + theirs)
    }

    /// Two-space indented when `pretty`, else compact. Always ends without a newline.
    /// `scriptSafe` also writes `<`, `>` and `&` as \u escapes, for JSON inside an HTML
    /// `<script>` element: no `</script>`, `<!--` or `-->` can appear in it then.
    public func rendered(pretty: Bool = true, scriptSafe: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(into: &out, indent: pretty ? 0 : nil, scriptSafe: scriptSafe)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(into out: inout [UInt8], indent: Int?, scriptSafe: Bool) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d): out += Array((d.isFinite ? "\(d)" : "null").utf8)
        case .string(let s): Self.escape(s, into: &out, scriptSafe: scriptSafe)
        case .array(let items):
            if items.isEmpty {
                out += Array("[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, indent.map { $0 + 1 })
                item.write(into: &out, indent: indent.map { $0 + 1 }, scriptSafe: scriptSafe)
            }
            Self.newline(&out, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            if pairs.isEmpty {
                out += Array("{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, indent.map { $0 + 1 })
                Self.escape(key, into: &out, scriptSafe: scriptSafe)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                value.write(into: &out, indent: indent.map { $0 + 1 }, scriptSafe: scriptSafe)
            }
            Self.newline(&out, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        out.append(10)
        for _ in 0..<(indent * 2) { out.append(32) }
    }

    /// Quotes, backslashes and every character `TextEscape.isUnsafe` names (controls, C1,
    /// U+2028/2029, which JavaScript strings cannot hold raw, and the bidi controls) as escapes,
    /// and the second `#` of `##[` (a CI runner's command): the same data, safe to print.
    static func escape(_ s: String, into out: inout [UInt8], scriptSafe: Bool = false) {
        out.append(UInt8(ascii: "\""))
        var copy = s
        let plain = copy.withUTF8 { utf8 in
            // Most strings need no escaping: copy them in one go. 0xC2, 0xD8 and 0xE2 lead the
            // unsafe scalars above ASCII; 0x23 is "#".
            if utf8.contains(where: {
                $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2
                    || $0 == 0x23
                    || (scriptSafe && ($0 == 0x3C || $0 == 0x3E || $0 == 0x26))
            }) {
                return false
            }
            out.append(contentsOf: utf8)
            return true
        }
        if !plain {
            let scalars = Array(s.unicodeScalars)
            for (i, c) in scalars.enumerated() {
                switch c {
                case "\"": out += [92, 34]
                case "\\": out += [92, 92]
                case "\n": out += [92, UInt8(ascii: "n")]
                case "\r": out += [92, UInt8(ascii: "r")]
                case "\t": out += [92, UInt8(ascii: "t")]
                default:
                    if TextEscape.isUnsafe(c) || TextEscape.oldCommand(scalars, at: i)
                        || (scriptSafe && (c == "<" || c == ">" || c == "&"))
                    {
                        let h = Array("0123456789abcdef".utf8)
                        let v = Int(c.value)
                        out += [92, UInt8(ascii: "u"), h[v >> 12 & 15], h[v >> 8 & 15], h[v >> 4 & 15], h[v & 15]]
                    } else {
                        UTF8.encode(c) { out.append($0) }
                    }
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
