import Foundation

/// Hides a secret (the service key) in text that may echo it, such as an API's error body: the
/// secret itself and every run of `window` or more characters of it, and the same in the forms
/// a server may echo it in (base64 and base64url at any byte offset, percent-encoded,
/// JSON-escaped). Each masked run becomes "***"; a secret shorter than `window` is masked where
/// it occurs whole.
@_spi(CLI) public struct SecretMask: Sendable {
    static let window = 8
    private let secret: [Unicode.Scalar]
    /// Every `window`-long run of every form of the secret.
    private let runs: Set<String>

    public init(_ secret: String) {
        self.secret = Array(secret.unicodeScalars)
        var runs = Set<String>()
        for form in Self.forms(secret) {
            let s = Array(form.unicodeScalars)
            guard s.count >= Self.window else { continue }
            for i in 0...(s.count - Self.window) { runs.insert(Self.string(s[i..<(i + Self.window)])) }
        }
        self.runs = runs
    }

    public func apply(_ text: String) -> String {
        let t = Array(text.unicodeScalars)
        guard !secret.isEmpty, !t.isEmpty else { return text }
        var hidden = [Bool](repeating: false, count: t.count)
        if t.count >= Self.window {
            for i in 0...(t.count - Self.window) where runs.contains(Self.string(t[i..<(i + Self.window)])) {
                for j in i..<(i + Self.window) { hidden[j] = true }
            }
        }
        if secret.count < Self.window, t.count >= secret.count {
            for i in 0...(t.count - secret.count) where t[i..<(i + secret.count)].elementsEqual(secret) {
                for j in i..<(i + secret.count) { hidden[j] = true }
            }
        }
        guard hidden.contains(true) else { return text }
        var out = ""
        for (i, c) in t.enumerated() {
            if !hidden[i] {
                out.unicodeScalars.append(c)
            } else if i == 0 || !hidden[i - 1] {
                out += "***"
            }
        }
        return out
    }

    /// The secret as a server may write it back.
    static func forms(_ secret: String) -> [String] {
        let bytes = Array(secret.utf8)
        var forms = [secret, secret.replacingOccurrences(of: "/", with: "\\/")]
        // Percent-encoded as RFC 3986, encodeURIComponent or "all but letters and digits" do,
        // in upper- or lower-case hex.
        for kept in ["-._~", "-._~!*'()", ""] {
            let encoded = bytes.map { b -> String in
                Self.alphanumeric(b) || kept.utf8.contains(b)
                    ? String(UnicodeScalar(b)) : "%" + String(b, radix: 16, uppercase: true).leftPad2
            }.joined()
            forms += [encoded, encoded.lowercased()]
        }
        // Base64 of the secret starting at each byte offset (it may be embedded in a longer
        // value, as in Basic auth): whole, and cut to whole 3-byte groups (what shows when more
        // follows it).
        var encodings: [String] = []
        for offset in 0..<3 where offset < bytes.count {
            let rest = Array(bytes[offset...])
            encodings.append(Data(rest).base64EncodedString())
            encodings.append(Data(rest.prefix(rest.count / 3 * 3)).base64EncodedString())
        }
        for e in encodings {
            forms.append(e)
            forms.append(
                e.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: ""))
        }
        return forms
    }

    static func alphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    static func string(_ s: ArraySlice<Unicode.Scalar>) -> String {
        var out = ""
        out.unicodeScalars.append(contentsOf: s)
        return out
    }
}

extension String {
    fileprivate var leftPad2: String { count >= 2 ? self : "0" + self }
}
