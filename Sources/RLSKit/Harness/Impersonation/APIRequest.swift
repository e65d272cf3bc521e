import Foundation

/// A header every signed-in user (or, without `{uid}`, every caller) sends with each Data API
/// request: `header x-tenant-id = {uid}` at the margin of an access file.
struct APIHeader: Sendable, Equatable {
    var name: String
    var value: String
    var location: SourceLocation

    /// The value this actor sends, or nil when it does not send the header (anon and `{uid}`;
    /// a caller in no group and `{group}`).
    func value(for actor: HarnessActor, group: String? = nil) -> String? {
        var v = value
        if v.contains("{uid}") {
            guard actor.kind == .user else { return nil }
            v = v.replacingOccurrences(of: "{uid}", with: actor.uid)
        }
        if v.contains("{group}") {
            guard let group else { return nil }
            v = v.replacingOccurrences(of: "{group}", with: group)
        }
        return v
    }

    /// Names rlskit sets itself, as PostgREST receives them from supabase-js.
    static let reserved: Set<String> = [
        "accept", "content-type", "prefer", "accept-profile", "content-profile", "authorization", "apikey",
    ]
}

/// What PostgREST sets for one request besides role and claims: `request.method`,
/// `request.path` (the path after the gateway strips `/rest/v1`), `request.headers` (JSON,
/// lower-case names) and `request.cookies`; GET runs in a READ ONLY transaction.
struct APIRequest: Sendable {
    var schema: String
    var table: String
    var headers: [APIHeader] = []

    static func method(_ operation: String) -> String {
        switch operation {
        case "select": "GET"
        case "insert": "POST"
        case "update": "PATCH"
        case "delete": "DELETE"
        default: "POST"
        }
    }

    /// `set_config` calls to append to the impersonation's select list (leading ", ").
    func settings(_ operation: String, as actor: HarnessActor, prefer: String? = nil, group: String? = nil) -> String {
        let method = Self.method(operation)
        let reading = method == "GET"
        var h: [(String, JSON)] = [("accept", .string("application/json"))]
        if !reading { h.append(("content-type", .string("application/json"))) }
        if let prefer { h.append(("prefer", .string(prefer))) }
        if schema != "public" { h.append((reading ? "accept-profile" : "content-profile", .string(schema))) }
        for x in headers { if let v = x.value(for: actor, group: group) { h.append((x.name, .string(v))) } }
        let path = "/" + (table.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? table)
        var sets = [
            ("request.method", method), ("request.path", path),
            ("request.headers", JSON.object(h).rendered(pretty: false)), ("request.cookies", "{}"),
        ]
        if reading { sets.append(("transaction_read_only", "on")) }
        return sets.map { ", set_config(\(SQL.literal($0.0)), \(SQL.literal($0.1)), true)" }.joined()
    }
}
