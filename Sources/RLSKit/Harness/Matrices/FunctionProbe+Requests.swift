import Foundation
import Postgres

/// A request a call queued that carries the project's elevated credentials: a JWT whose role is
/// `service_role` (or an admin role), or a secret key (`sb_secret_…`). A caller who should have
/// neither makes the server act with them: the Storage API deletes, the Auth admin API answers.
/// Said without the credential itself.
extension FunctionProbe {
    struct Recorded: Sendable, Equatable {
        /// `METHOD url`, with anything secret-looking in the URL hidden.
        var request: String
        /// "a service_role token", "a secret key", or nil when it carries neither.
        var credential: String?
    }

    static let elevatedRoles: Set<String> = ["service_role", "supabase_admin", "postgres"]

    /// The credential `text` (headers, a body) carries, described, or nil.
    static func credential(in text: String) -> String? {
        if text.range(of: #"sb_secret_[A-Za-z0-9_-]{8,}"#, options: .regularExpression) != nil { return "a secret key" }
        var rest = Substring(text)
        let jwt = #"eyJ[A-Za-z0-9_-]+\.(eyJ[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*"#
        while let r = rest.range(of: jwt, options: .regularExpression) {
            let parts = rest[r].split(separator: ".")
            if parts.count >= 2, let role = jwtRole(String(parts[1])), elevatedRoles.contains(role) {
                return "a \(role) token"
            }
            rest = rest[r.upperBound...]
        }
        return nil
    }

    static func jwtRole(_ payload: String) -> String? {
        var b64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let data = Data(base64Encoded: b64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["role"] as? String
    }

    /// The URL with query values and JWT-looking runs hidden (an `apikey=` in a URL is a key).
    static func shown(_ url: String) -> String {
        var u = url.replacingOccurrences(
            of: #"eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"#, with: "***", options: .regularExpression)
        u = u.replacingOccurrences(
            of: #"sb_(secret|publishable)_[A-Za-z0-9_-]+"#, with: "***", options: .regularExpression)
        return u.replacingOccurrences(
            of: #"([?&](apikey|key|token|secret|access_token)=)[^&#]*"#, with: "$1***",
            options: [.regularExpression, .caseInsensitive])
    }

    /// The newest `n` recorded requests, oldest first.
    static func recorded(_ n: Int, _ conn: PostgresConnection) throws -> [Recorded] {
        var out: [(Int64, Recorded)] = []
        let sources = [
            (
                "net.http_request_queue",
                "coalesce(headers::text, '') || ' ' || coalesce(encode(body, 'escape'), '')"
            ),
            ("rlskit_http.requests", "coalesce(headers::text, '') || ' ' || coalesce(content, '')"),
        ]
        for (table, carried) in sources {
            let exists: Bool =
                try conn.query("select to_regclass($1) is not null", [table]).rows.first?.decode(0) ?? false
            guard exists else { continue }
            // Each source's ids are its own: order within it, keep the newest n of each.
            let rows = try conn.query(
                "select id, method, url, \(carried) || ' ' || url from \(table) order by id desc limit \(n)"
            ).rows
            for r in rows {
                let url: String = try r.decode(2)
                let method: String = try r.decode(1)
                out.append(
                    (
                        try r.decode(0),
                        Recorded(request: "\(method) \(shown(url))", credential: credential(in: try r.decode(3)))
                    )
                )
            }
        }
        return Array(out.sorted { $0.0 > $1.0 }.prefix(n).map(\.1).reversed())
    }
}
