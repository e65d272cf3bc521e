import Foundation
import Postgres

/// Policies that let the wrong caller through (1002, 1006, 1007, 1013): the attacker sends the
/// policy's command against a row seeded as another user's, the policy's own test added to the
/// request (so the rows counted are those this policy lets through).
extension ProofContext {
    func policy(_ f: Finding, attacker kind: Attacker) throws -> Proof {
        let t = try table(f.object.schema, f.object.name)
        if ["storage", "realtime"].contains(t.schema) {
            throw Unprovable(reason: "no exploit written for \(t.qualifiedName) policies yet")
        }
        if !t.rlsEnabled { throw Unprovable(reason: "row level security is disabled on \(t.qualifiedName)") }
        let roles = Set((f.metadata["roles"] ?? "public").split(separator: ",").map(String.init))
        let command = f.metadata["command"] ?? "ALL"
        let using = f.metadata["using"]
        let check = f.metadata["with_check"]
        var attacker = kind == .anon ? HarnessActor.anon : HarnessActor.user("stranger")
        let applies = { (r: String) in roles.contains("public") || roles.contains(r) }
        if kind == .anon, !applies("anon") {
            throw Unprovable(
                reason:
                    "the policy applies to \(roles.sorted().joined(separator: ", ")) only: anon never reaches it, and a signed-in caller has a user id"
            )
        }
        if kind == .stranger, !applies("authenticated") {
            guard applies("anon") else {
                throw Unprovable(
                    reason: "the policy applies to \(roles.sorted().joined(separator: ", ")) only, not to API callers")
            }
            attacker = .anon
        }
        let victim = HarnessActor.user("victim")
        try signUp(attacker.kind == .user ? [victim, attacker] : [victim])
        let owner = Self.ownerColumn(t)
        let key = try seed(t, owner: victim.uid, ownerColumn: owner, n: 1)
        var memberships: [String] = []
        if attacker.kind == .user {
            // A helper's tables are in its body: the inlined text names them.
            memberships = try seedMemberships(
                (f.metadata["inlined"] ?? "") + " " + (using ?? check ?? ""), besides: t, for: attacker)
        }
        let label =
            attacker.kind == .anon
            ? "anon"
            : Self.strangerLabel
                + (memberships.isEmpty ? "" : " with a row of their own in " + memberships.joined(separator: ", "))
        let keyExpr = try keyExpression(t)
        let target = "\(keyExpr) = \(SQL.literal(key))"
        let outcome: Outcome
        let request: String
        let sql: String
        let effect: String
        switch command {
        case "SELECT", "ALL":
            sql = try readSQL(t, filter: using)
            request = "GET \(Self.path(t))?select=*" + Self.profile(t, reading: true)
            outcome = try send(attacker, "select", on: t, sql)
            effect = "read"
        case "UPDATE":
            let touch = t.columns.first { $0.writable && $0.name != owner }?.name ?? owner
            sql = "update \(t.sqlName) set \(SQL.ident(touch)) = \(SQL.ident(touch)) where \(target)"
            request = "PATCH \(Self.path(t))\(Self.filter(key))" + Self.profile(t, reading: false)
            outcome = try send(attacker, "update", on: t, sql)
            effect = "updated"
        case "DELETE":
            sql = "delete from \(t.sqlName) where \(target)"
            request = "DELETE \(Self.path(t))\(Self.filter(key))" + Self.profile(t, reading: false)
            outcome = try send(attacker, "delete", on: t, sql)
            effect = "deleted"
        default:
            let insert = try insertAsOthers(t, owner: owner, victim: victim, attacker: attacker)
            sql = insert.sql
            request = "POST \(Self.path(t))" + Self.profile(t, reading: false)
            outcome = insert.outcome
            effect =
                insert.own.map { "inserted (a row of their own, with another user's \($0.joined(separator: ", ")))" }
                ?? "inserted (as another user's)"
        }
        switch outcome {
        case .read(let keys, let n) where n > 0:
            return Self.proven(attacker, label: label, request: request, sql: sql, effect: effect, rows: n, keys: keys)
        case .wrote(let n) where n > 0:
            return Self.proven(
                attacker, label: label, request: request, sql: sql, effect: effect, rows: n,
                keys: effect.hasPrefix("inserted") ? [] : [key])
        case .failed(let e):
            return .notProven("as \(attacker.name), \(request) was \(Self.refusal(e))")
        default:
            return .notProven(
                "as \(attacker.name), \(request) reached no row of another user (\(attacker.kind == .anon ? "anon" : "a stranger") does not pass the policy)"
            )
        }
    }

    /// Tables the policy reads (`from x`, `join x`) with a user column get a row of the
    /// stranger's, in another group: what makes a stranger a member of something. Returns them.
    func seedMemberships(_ expression: String, besides t: TableInfo, for user: HarnessActor) throws -> [String] {
        let names = Self.tablesNamed(in: expression)
        var out: [String] = []
        for (i, name) in names.prefix(3).enumerated() {
            guard
                let row = try conn.query(
                    "select n.nspname::text as s, c.relname::text as t from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = to_regclass($1) and c.relkind in ('r', 'p')",
                    [name]
                ).rows.first
            else { continue }
            let (schema, table): (String, String) = (try row.decode("s"), try row.decode("t"))
            if schema == t.schema && table == t.name { continue }
            let m = try self.table(schema, table)
            let owner = Self.ownerColumn(m)
            if owner.isEmpty { continue }
            if (try? seed(m, owner: user.uid, ownerColumn: owner, n: 10 + i)) != nil { out.append(m.qualifiedName) }
        }
        return out
    }

    /// Relation names after FROM or JOIN in a policy's text.
    static func tablesNamed(in text: String) -> [String] {
        let ident = #"(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)"#
        guard
            let re = try? NSRegularExpression(pattern: #"(?i)\b(?:from|join)\s+("# + ident + #"(?:\."# + ident + ")?)")
        else { return [] }
        let ns = text as NSString
        var seen: [String] = []
        for m in re.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: m.range(at: 1))
            if !seen.contains(name) { seen.append(name) }
        }
        return seen
    }

    /// 1003: user A updates their own row so that it belongs to user B.
    func handOver(_ f: Finding) throws -> Proof {
        let t = try table(f.object.schema, f.object.name)
        if ["storage", "realtime"].contains(t.schema) {
            throw Unprovable(reason: "no exploit written for \(t.qualifiedName) policies yet")
        }
        let roles = Set((f.metadata["roles"] ?? "public").split(separator: ",").map(String.init))
        guard roles.contains("public") || roles.contains("authenticated") else {
            throw Unprovable(reason: "the policy applies to \(roles.sorted().joined(separator: ", ")) only")
        }
        let columns = (f.metadata["unchecked"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { c in t.columns.contains { $0.name == c && $0.writable } }
        guard let column = columns.first else {
            throw Unprovable(
                reason:
                    "what WITH CHECK leaves unchecked (\(f.metadata["unchecked"] ?? "?")) is not a column rlskit can set"
            )
        }
        let a = HarnessActor.user("A")
        let b = HarnessActor.user("B")
        try signUp([a, b])
        let key = try seed(t, owner: a.uid, ownerColumn: column, n: 1)
        let target = "\(try keyExpression(t)) = \(SQL.literal(key))"
        let set = "update \(t.sqlName) set \(SQL.ident(column)) = \(SQL.literal(b.uid))"
        let body = "{\"\(column)\": \"\(b.uid)\"}"
        let label = "user A (on their own row)"
        var refused: [String] = []
        // With a filter, as supabase-js sends `.update(…).eq(…)`; then with none (every row A may update).
        for (sql, request) in [
            (set + " where \(target)", "PATCH \(Self.path(t))\(Self.filter(key)) \(body)"),
            (set, "PATCH \(Self.path(t)) \(body)"),
        ] {
            // The write and the look at it in one savepoint: the hand-over stays visible to the admin.
            try conn.query("SAVEPOINT rlskit_handover")
            defer {
                _ = try? conn.query("ROLLBACK TO SAVEPOINT rlskit_handover")
                _ = try? conn.query("RELEASE SAVEPOINT rlskit_handover")
            }
            do {
                try conn.query(
                    a.impersonation() + APIRequest(schema: t.schema, table: t.name).settings("update", as: a))
                let n = try conn.query(sql).affectedRows ?? 0
                try conn.query("select set_config('role', null, true), set_config('request.jwt.claims', '', true)")
                let moved: Int64 = try conn.query(
                    "select count(*) from \(t.sqlName) where \(target) and \(SQL.ident(column))::text = \(SQL.literal(b.uid))"
                ).rows[0].decode(0)
                if n > 0 && moved > 0 {
                    // Only with no filter: say what the filtered request met (pg-safeupdate refuses this one).
                    let caveat = refused.first.map { " (with no filter only; \($0))" } ?? ""
                    return Self.proven(
                        a, label: label, request: request + Self.profile(t, reading: false), sql: sql,
                        effect: "handed to user B" + caveat, rows: Int(moved), keys: [key])
                }
                refused.append("\(request) changed no row")
            } catch let e as PostgresError {
                if e.isConnectionFailure { throw e }
                refused.append("\(request) was \(Self.refusal(e))")
            }
        }
        return .notProven("as user A, " + refused.joined(separator: "; "))
    }
}
