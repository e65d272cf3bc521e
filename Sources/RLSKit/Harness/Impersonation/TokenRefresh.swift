import Foundation
import Postgres

/// GoTrue signs `app_metadata` and `user_metadata` from auth.users at each token refresh, so
/// claims that triggers or functions wrote there during seeding (a role table copied into
/// raw_app_meta_data, supabase-custom-claims' set_claim) are in the token the checks use.
enum TokenRefresh {
    /// Rewrites each user's claims in the unit's checks from auth.users as seeding left it;
    /// what rlskit gave a user on purpose (a role's claim, a forger's user_metadata) stays.
    static func refresh(_ unit: inout HarnessUnit, conn: PostgresConnection) throws {
        let users = unit.users.filter { $0.kind == .user }
        guard !users.isEmpty else { return }
        // to_jsonb(u) reads the columns by name, so a schema without one of them still works.
        let rows = try conn.query(
            """
            select u.id::text as id, coalesce(to_jsonb(u) -> 'raw_app_meta_data', '{}')::text as app,
                   coalesce(to_jsonb(u) -> 'raw_user_meta_data', '{}')::text as meta
              from auth.users u where u.id = any($1::uuid[])
            """, [users.map(\.uid)]
        ).rows
        var stored: [String: (app: String, meta: String)] = [:]
        for r in rows { stored[try r.decode("id")] = (try r.decode("app"), try r.decode("meta")) }
        var swaps: [(String, String)] = []
        for i in unit.users.indices where unit.users[i].kind == .user {
            let u = unit.users[i]
            guard let (app, meta) = stored[u.uid] else { continue }
            var v = u
            if let a = refreshed(app, given: u.appMetadata) { v.appMetadata = a }
            if let m = refreshed(meta, given: u.userMetadata) { v.userMetadata = m }
            guard v.appMetadata != u.appMetadata || v.userMetadata != u.userMetadata else { continue }
            swaps.append((SQL.literal(u.claims), SQL.literal(v.claims)))
            unit.users[i] = v
        }
        guard !swaps.isEmpty else { return }
        for i in unit.checks.indices {
            unit.checks[i].statements = unit.checks[i].statements.map { s in
                guard s.contains("request.jwt.claims") else { return s }
                return swaps.reduce(s) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            }
        }
    }

    /// The stored object with the given keys laid over it; nil when that says nothing new.
    static func refreshed(_ stored: String, given: String) -> String? {
        guard let s = try? JSON(parsing: stored), case .object = s, let g = try? JSON(parsing: given) else {
            return nil
        }
        let platform = (try? JSON(parsing: HarnessActor.platformAppMetadata)) ?? .object([])
        let merged = s.merging(g)
        // What sign-up wrote (the provider keys, the given keys) is not news.
        for known in [g, platform.merging(g)] where canonical(merged) == canonical(known) { return nil }
        return merged.rendered(pretty: false)
    }

    /// Keys sorted at every level, so that two texts of one object compare equal.
    static func canonical(_ j: JSON) -> String {
        func sort(_ j: JSON) -> JSON {
            switch j {
            case .object(let pairs): return .object(pairs.map { ($0.0, sort($0.1)) }.sorted { $0.0 < $1.0 })
            case .array(let items): return .array(items.map(sort))
            default: return j
            }
        }
        return sort(j).rendered(pretty: false)
    }
}
