import Foundation
import Postgres

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
    /// PostgREST's `db-pre-request` function, called after the request's settings: quoted.
    var preRequest: String? = nil

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
        // The select list runs left to right: the function sees the role, claims and headers.
        return sets.map { ", set_config(\(SQL.literal($0.0)), \(SQL.literal($0.1)), true)" }.joined()
            + (preRequest.map { ", \($0)()" } ?? "")
    }
}

/// PostgREST's `db-pre-request` as the project configures it in the database
/// (`alter role authenticator set pgrst.db_pre_request = 'public.check_request'`), which
/// PostgREST calls before every request; this database's setting wins over the role's.
enum PreRequest {
    static func function(_ conn: PostgresConnection) throws -> String? {
        let rows = try conn.query(
            """
            select pg_catalog.substr(s.setting, pg_catalog.length('pgrst.db_pre_request=') + 1) as name
              from pg_catalog.pg_db_role_setting d
              join pg_catalog.pg_roles r on r.oid = d.setrole
              cross join lateral pg_catalog.unnest(d.setconfig) as s(setting)
             where r.rolname = 'authenticator' and s.setting like 'pgrst.db\\_pre\\_request=%'
               and d.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = pg_catalog.current_database()))
             order by d.setdatabase desc limit 1
            """
        ).rows
        guard let name: String = try rows.first?.decode("name") else { return nil }
        return quoted(name)
    }

    /// `schema.function` or `function`, each part quoted; nil for anything else.
    static func quoted(_ name: String) -> String? {
        let parts = name.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
            .map { p -> String in
                let t = p.trimmingCharacters(in: .whitespaces)
                return t.count > 1 && t.hasPrefix("\"") && t.hasSuffix("\"")
                    ? String(t.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"") : t
            }
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return parts.map { SQL.ident($0, always: true) }.joined(separator: ".")
    }
}
