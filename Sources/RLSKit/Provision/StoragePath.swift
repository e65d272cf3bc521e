import Foundation

/// Which bucket ids and object names may go into a Storage API URL, and that URL. The same rules
/// as `private.storage_path_problem` in sql/migrations/0006_storage_paths.sql (a test runs both
/// over the same names): HTTP clients and proxies resolve "." and ".." segments, some decode
/// "%2e" (or "%252e") first or map look-alikes such as "．" to ".", and "\" separates paths for
/// some servers, so any of these could send the service key's DELETE elsewhere (the Auth admin
/// API, another user's folder). Works on Unicode scalars, not Characters: "/" followed by a
/// combining mark is one Character but still a slash on the wire.
enum StoragePath {
    /// Why `bucket`/`name` must not be sent, or nil when it may.
    static func problem(bucket: String, name: String) -> String? {
        for (label, part) in [("bucket id", bucket), ("object name", name)] {
            if part.isEmpty { return label + " is empty" }
            var forms = [part]
            if !part.unicodeScalars.allSatisfy(\.isASCII) {
                forms.append(part.precomposedStringWithCompatibilityMapping)
            }
            for form in forms {
                let scalars = Array(form.unicodeScalars)
                if scalars.contains(where: isControl) { return label + " contains a control character" }
                if scalars.contains("\\") { return label + " contains a backslash" }
                if hasEncodedSeparator(Array(form.utf8)) {
                    return label
                        + " contains a percent-encoded dot, slash, backslash, percent sign or control character"
                }
                if label == "bucket id" && scalars.contains("/") { return "bucket id contains a slash" }
                let segments = scalars.split(separator: "/", omittingEmptySubsequences: false)
                if segments.contains(where: { $0.isEmpty || $0 == ["."] || $0 == [".", "."] }) {
                    return label + " has an empty, \".\" or \"..\" segment"
                }
            }
        }
        return nil
    }

    /// `<base>/storage/v1/object/<bucket>/<name>` with every segment percent-encoded, and checked
    /// to have exactly that path; throws for what `problem` refuses or a base with a query or fragment.
    static func url(base: String, bucket: String, name: String) throws -> URL {
        if let p = problem(bucket: bucket, name: name) {
            throw ConfigurationError("refusing storage object \(shown(bucket))/\(shown(name)): \(p)")
        }
        guard var c = URLComponents(string: base), c.query == nil, c.fragment == nil else {
            throw ConfigurationError(
                "the Storage API URL must be scheme://host[:port][/path], with no query or fragment")
        }
        var prefix = c.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let path = prefix + "/storage/v1/object/" + encode(bucket) + "/" + encode(name)
        c.percentEncodedPath = path
        guard let u = c.url, URLComponents(url: u, resolvingAgainstBaseURL: false)?.percentEncodedPath == path else {
            throw ConfigurationError("refusing storage object \(shown(bucket))/\(shown(name)): cannot build its URL")
        }
        return u
    }

    /// Percent-encodes everything but "/" and RFC 3986's unreserved characters, as UTF-8 (as the SQL does).
    static func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "a")...UInt8(ascii: "z"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// A name for output: control and format characters (which could move the cursor or reorder
    /// a terminal line) written as \u{…}.
    static func shown(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars.prefix(300) {
            if isControl(u) || u.properties.generalCategory == .format {
                out += "\\u{\(String(u.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return s.unicodeScalars.count > 300 ? out + "…" : out
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || (0x7F...0x9F).contains(u.value) }

    /// "%2e", "%2f", "%5c", "%25", "%00"-"%1f", "%7f" and "%c2%80"-"%c2%9f", in any case.
    static func hasEncodedSeparator(_ b: [UInt8]) -> Bool {
        func lower(_ i: Int) -> UInt8? { i < b.count ? ((65...90).contains(b[i]) ? b[i] + 32 : b[i]) : nil }
        func hex(_ i: Int) -> Bool { lower(i).map { (48...57).contains($0) || (97...102).contains($0) } ?? false }
        for i in b.indices where b[i] == UInt8(ascii: "%") && hex(i + 1) && hex(i + 2) {
            let pair = String(decoding: [lower(i + 1)!, lower(i + 2)!], as: UTF8.self)
            if ["2e", "2f", "5c", "25", "7f"].contains(pair) || pair.hasPrefix("0") || pair.hasPrefix("1") {
                return true
            }
            if pair == "c2", i + 5 < b.count, b[i + 3] == UInt8(ascii: "%"),
                [UInt8(ascii: "8"), UInt8(ascii: "9")].contains(b[i + 4]), hex(i + 5)
            {
                return true
            }
        }
        return false
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}
