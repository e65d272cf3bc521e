import Foundation

/// Finds credentials written into catalog text. Never returns the secret itself: only a
/// redacted prefix that identifies the kind.
enum SecretScanner {
    struct Match: Sendable, Equatable {
        /// "service_role JWT", "JWT", "secret API key", "password in a connection URL".
        var kind: String
        /// Safe to print: a short prefix and an ellipsis, or the URL with its password masked.
        var redacted: String
    }

    static let jwt = try! NSRegularExpression(
        pattern: "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}")
    static let secretKey = try! NSRegularExpression(pattern: "sb_secret_[A-Za-z0-9_-]{8,}")
    static let urlPassword = try! NSRegularExpression(
        pattern: "([A-Za-z][A-Za-z0-9+.-]*)://([^/:@\\s'\"]+):([^/@\\s'\"]+)@([^/:\\s'\"]*)")
    static let lock = NSLock()

    static func scan(_ text: String) -> [Match] {
        lock.lock()
        defer { lock.unlock() }
        let ns = text as NSString
        let range = NSRange(location: 0, length: ns.length)
        var out: [Match] = []
        for m in jwt.matches(in: text, range: range) {
            let token = ns.substring(with: m.range)
            let role = jwtRole(token)
            // An anon key is public by design (it ships in every client app).
            if role == "anon" { continue }
            out.append(Match(kind: role.map { "\($0) JWT" } ?? "JWT", redacted: String(token.prefix(10)) + "…"))
        }
        for m in secretKey.matches(in: text, range: range) {
            out.append(Match(kind: "secret API key", redacted: String(ns.substring(with: m.range).prefix(12)) + "…"))
        }
        for m in urlPassword.matches(in: text, range: range) {
            let password = ns.substring(with: m.range(at: 3))
            if isPlaceholder(password) { continue }
            let scheme = ns.substring(with: m.range(at: 1))
            let user = ns.substring(with: m.range(at: 2))
            let host = ns.substring(with: m.range(at: 4))
            out.append(Match(kind: "password in a connection URL", redacted: "\(scheme)://\(user):***@\(host)"))
        }
        return out
    }

    /// The `role` claim of a JWT's payload, if it decodes.
    static func jwtRole(_ token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var b64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let data = Data(base64Encoded: b64),
            let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return obj["role"] as? String
    }

    static func isPlaceholder(_ p: String) -> Bool {
        if let f = p.first, "<[{$*%:".contains(f) { return true }
        return [
            "password", "pass", "pw", "secret", "your-password", "your_password", "yourpassword", "xxx", "changeme",
        ]
        .contains(p.lowercased())
    }
}
