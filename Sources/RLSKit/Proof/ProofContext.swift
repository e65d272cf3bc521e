import Foundation
import Postgres

/// What the exploits share: the connection (inside the proof's transaction), how users are
/// signed up, how rows are seeded and how a request is sent as a caller.
struct ProofContext {
    /// A reason the exploit cannot be built, thrown from deep inside a strategy.
    struct Unprovable: Error { var reason: String }

    let conn: PostgresConnection
    let authColumns: Set<String>
    let authAdmin: Bool
    let signUpMetadata: SignUpMetadata

    init(_ conn: PostgresConnection) throws {
        self.conn = conn
        authColumns = try Catalog.authUserColumns(conn)
        signUpMetadata = authColumns.isEmpty ? SignUpMetadata() : try SignUpMetadata.read(conn)
        let gotrue = try Catalog.authAdmin(conn)
        authAdmin = gotrue.exists && gotrue.usable
    }

    /// Who attacks: anon, or a signed-in user who owns nothing (with a membership of their own
    /// in another group where the policy reads one).
    enum Attacker { case anon, stranger }

    static let strangerLabel = "a stranger (a signed-in user who owns none of the rows)"

    /// Users created as GoTrue signs them up (sign-up triggers run), rolled back with the proof.
    func signUp(_ users: [HarnessActor]) throws {
        guard !authColumns.isEmpty else {
            throw Unprovable(reason: "auth.users does not exist, so no user can sign up")
        }
        do {
            _ = try conn.runScript(
                SignUp.script(users, columns: authColumns, authAdminExists: authAdmin, metadata: signUpMetadata))
        } catch {
            throw error.error
        }
    }

    func table(_ schema: String, _ name: String) throws -> TableInfo {
        let t = try Catalog.table(conn, schema: schema, name: name)
        guard t.exists else { throw Unprovable(reason: "table \(AuditNames.qualified(schema, name)) was not found") }
        return t
    }

    /// The primary key's columns, else a unique key's, else none (rows are then named by ctid).
    func keyColumns(_ t: TableInfo) throws -> [String] {
        let pk: [String] = try conn.query(
            """
            select array(select a.attname::text from pg_index i cross join unnest(i.indkey) with ordinality k(n, o)
                          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n
                         where i.indrelid = to_regclass($1) and i.indisprimary order by k.o) as cols
            """, [t.sqlName]
        ).rows[0].decode("cols")
        return pk.isEmpty ? t.uniqueKeys.first ?? [] : pk
    }

    /// A text naming a row by its key: `id=1`, `org_id=…, user_id=…`.
    func keyExpression(_ t: TableInfo) throws -> String { Blame.keyExpression(try keyColumns(t)) }

    /// The column holding a row's user: one referencing auth.users, else a uuid column named
    /// like one; "" when the table has none.
    static func ownerColumn(_ t: TableInfo) -> String {
        let writable = t.columns.filter(\.writable)
        if let c = writable.first(where: { $0.references?.hasPrefix("auth.users(") == true }) { return c.name }
        if let fk = t.foreignKeys.first(where: { $0.toAuthUsers && $0.columns.count == 1 }),
            writable.contains(where: { $0.name == fk.columns[0] })
        {
            return fk.columns[0]
        }
        let names = [
            "user_id", "owner_id", "owner", "created_by", "author_id", "profile_id", "account_id", "member_id", "uid",
        ]
        for n in names {
            if let c = writable.first(where: { $0.name == n && ($0.typeName == "uuid" || $0.baseTypeName == "uuid") }) {
                return c.name
            }
        }
        return ""
    }

    /// Seeds one row owned by `owner` as the harness seeds (service_role where it may insert),
    /// every plain column filled so that tests on them see values; returns the row's key.
    func seed(_ t: TableInfo, owner: String, ownerColumn: String, n: Int, fixed: [String: String] = [:]) throws
        -> String
    {
        var fixed = fixed
        for c in t.columns
        where c.writable && !c.notNull && !c.hasDefault && c.name != ownerColumn && c.references == nil
            && fixed[c.name] == nil && !t.foreignKeys.contains(where: { $0.columns.contains(c.name) })
        {
            if let v = Seeder.value(for: c, n: n) { fixed[c.name] = v }
        }
        let intent = TableIntent(
            schema: t.schema, name: t.name, owner: ownerColumn, location: SourceLocation(file: "proof", line: 0))
        let seeder = Seeder(table: t, intent: intent, fixed: fixed)
        if let p = seeder.problem {
            throw Unprovable(reason: "rlskit could not seed a row of \(t.qualifiedName): \(p)")
        }
        let key = try keyExpression(t)
        try conn.query("SAVEPOINT rlskit_seed")
        do {
            let parents = seeder.parents.script(owners: [owner])
            if !parents.isEmpty {
                do { _ = try conn.runScript(parents) } catch { throw error.error }
            }
            if t.serviceRoleCanInsert { try conn.query("select set_config('role', 'service_role', true)") }
            let r = seeder.row(owner: owner, n: n)
            let row = try conn.query(
                "insert into \(t.sqlName)" + InsertSQL.values(r.columns, r.values, overriding: seeder.overriding)
                    + " returning \(key) as k")
            try conn.query("select set_config('role', null, true)")
            try conn.query("RELEASE SAVEPOINT rlskit_seed")
            return try row.rows[0].decode("k")
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            _ = try? conn.query("ROLLBACK TO SAVEPOINT rlskit_seed")
            _ = try? conn.query("RELEASE SAVEPOINT rlskit_seed")
            throw Unprovable(reason: "seeding a row of \(t.qualifiedName) failed: \(e.message)")
        }
    }

    /// What one request did.
    enum Outcome {
        /// Rows read: the first keys, and how many.
        case read([String], Int)
        case wrote(Int)
        case failed(PostgresError)
    }

    /// `sql` as `actor`, with what PostgREST sets for `operation` on `t`; undone by a savepoint.
    /// A read returns `k` (the key) and `n` (the count) columns.
    func send(_ actor: HarnessActor, _ operation: String, on t: TableInfo, _ sql: String) throws -> Outcome {
        let settings =
            actor.impersonation() + APIRequest(schema: t.schema, table: t.name).settings(operation, as: actor)
        let r = try undone(settings) { () throws -> Outcome in
            let r = try conn.query(sql)
            guard operation == "select" else { return .wrote(r.affectedRows ?? 0) }
            let keys: [String] = try r.rows.map { try $0.decode("k") }
            let n: Int64 = try r.rows.first?.decode("n") ?? 0
            return .read(keys, Int(n))
        }
        switch r {
        case .success(let o): return o
        case .failure(let e): return .failed(e)
        }
    }

    /// `body` after `settings` (a select of set_config calls), undone by a savepoint: what the
    /// server refused is the result; a lost connection is thrown.
    func undone<T>(_ settings: String, _ body: () throws -> T) throws -> Result<T, PostgresError> {
        try conn.query("SAVEPOINT rlskit_proof")
        defer {
            _ = try? conn.query("ROLLBACK TO SAVEPOINT rlskit_proof")
            _ = try? conn.query("RELEASE SAVEPOINT rlskit_proof")
        }
        do {
            try conn.query(settings)
            return .success(try body())
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            return .failure(e)
        }
    }

    /// A read of `t` that returns keys and a count, filtered by `filter`.
    /// `columns` (SQL, comma-separated) are read too: a read that may not see them fails.
    func readSQL(_ t: TableInfo, filter: String? = nil, columns: String? = nil) throws -> String {
        "select \(try keyExpression(t)) as k, count(*) over () as n\(columns.map { ", " + $0 } ?? "") from \(t.sqlName)"
            + (filter.map { " where (\($0))" } ?? "") + " limit \(Proof.keyLimit)"
    }

    /// The request's path as the client sends it, before the gateway strips `/rest/v1`.
    static func path(_ t: TableInfo) -> String {
        "/rest/v1/" + (t.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? t.name)
    }

    /// `Accept-Profile: api` (reads) or `Content-Profile: api` (writes) outside public.
    static func profile(_ t: TableInfo, reading: Bool) -> String {
        t.schema == "public" ? "" : " (\(reading ? "Accept" : "Content")-Profile: \(t.schema))"
    }

    /// A PostgREST filter naming the row: `?id=eq.1` from `id=1`.
    static func filter(_ key: String) -> String {
        "?"
            + key.split(separator: ",").map { part in
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                return kv.count == 2 ? "\(kv[0])=eq.\(kv[1])" : String(part)
            }.joined(separator: "&")
    }

    static func proven(
        _ actor: HarnessActor, label: String? = nil, request: String, sql: String, effect: String, rows: Int,
        keys: [String]
    ) -> Proof {
        var p = Proof(outcome: .proven)
        p.actor = label ?? (actor.kind == .anon ? "anon" : strangerLabel)
        p.role = actor.role
        p.request = request
        p.sql = sql
        p.effect = effect
        p.rows = rows
        p.keys = Array(keys.prefix(Proof.keyLimit))
        return p
    }

    /// How a refused request reads in a reason.
    static func refusal(_ e: PostgresError) -> String {
        e.sqlState == "42501"
            ? "denied (\(e.message))"
            : e.sqlState == "57014" ? "cut off after \(Prover.timeout)" : "failed (\(e.message))"
    }
}
