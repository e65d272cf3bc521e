import Foundation
import Postgres

/// Runs the hook for a unit's users after sign-up and seeding, and makes every check read the
/// claims it returned (kept in a transaction-local setting per user).
enum HookClaims {
    static func setting(_ u: HarnessActor) -> String { "rlskit.hook_" + u.uid.replacingOccurrences(of: "-", with: "") }

    /// Points each user's impersonation at its hooked claims instead of the literal ones.
    static func reroute(_ unit: inout HarnessUnit) {
        let users = unit.users.filter { $0.kind == .user }
        guard !users.isEmpty else { return }
        let swaps = users.map { (SQL.literal($0.claims), "current_setting(\(SQL.literal(setting($0))))") }
        for i in unit.checks.indices {
            unit.checks[i].statements = unit.checks[i].statements.map { s in
                guard s.contains("request.jwt.claims") else { return s }
                return swaps.reduce(s) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            }
        }
    }

    /// Calls the hook once per user; nil when it went well, else the one line saying why not.
    static func run(_ hook: AccessTokenHook, _ unit: HarnessUnit, conn: PostgresConnection, authAdmin: Bool) throws
        -> String?
    {
        let users = unit.users.filter { $0.kind == .user }
        guard !users.isEmpty else { return nil }
        let events = JSON.array(
            users.map { u in
                .object([("user_id", .string(u.uid)), ("claims", (try? JSON(parsing: u.hookInput)) ?? .null)])
            })
        let rows: [[String?]]
        do {
            if authAdmin { try conn.query("select set_config('role', 'supabase_auth_admin', true)") }
            rows = try conn.query(
                "select u->>'user_id', \(hook.sqlName)(jsonb_build_object('user_id', u->'user_id', 'claims', u->'claims', "
                    + "'authentication_method', 'password'))::text from jsonb_array_elements($1::jsonb) u",
                [events.rendered(pretty: false)]
            ).rows.map(\.values)
            try conn.query("select set_config('role', null, true)")
        } catch let e as PostgresError where !e.isConnectionFailure {
            return failure(hook, "failed: \(e.message)")
        }
        var settings: [(String, JSON)] = []
        for (u, row) in zip(users, rows) {
            guard let text = row[1], let out = try? JSON(parsing: text) else {
                return failure(hook, "returned no JSON object for user \(u.name)")
            }
            if let err = out["error"] {
                let message = err["message"].flatMap { if case .string(let s) = $0 { s } else { nil } }
                return failure(hook, "returned an error for user \(u.name): \(message ?? err.rendered(pretty: false))")
            }
            guard let claims = out["claims"], case .object = claims else {
                return failure(hook, "returned no 'claims' object for user \(u.name)")
            }
            // Claims rlskit gives a user on purpose (a role's holder, a scenario's `claims`) stay.
            let given = (try? JSON(parsing: u.extraClaims)) ?? .object([])
            settings.append((setting(u), .string(claims.merging(given).rendered(pretty: false))))
        }
        try conn.query(
            "select count(set_config(key, value, true)) from jsonb_each_text($1::jsonb)",
            [JSON.object(settings).rendered(pretty: false)])
        return nil
    }

    static func failure(_ hook: AccessTokenHook, _ what: String) -> String {
        "custom access-token hook \(hook) (set in \(hook.source)) \(what): fix the function "
            + "(GoTrue calls it as supabase_auth_admin with {user_id, claims, authentication_method} and signs the 'claims' it returns)"
    }
}
