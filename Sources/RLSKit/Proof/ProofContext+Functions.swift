import Foundation
import Postgres

/// 0028: anon calls the function as RPC, as `rlskit test`'s probe calls it, after the victim's
/// rows are seeded in the tables its body reads. Its uuid arguments are tried with the keys of
/// those rows (another user's or group's), and a returned row counts as leaked when it holds
/// any value of a seeded row anon cannot read directly. Proven only when a call succeeds and
/// writes rows, leaks, or queues a request carrying the
/// project's service credentials (the Storage or Auth API would then act for anon); a call that raises, or returns only what anon may read anyway, is not.
extension ProofContext {
    func function(_ f: Finding) throws -> Proof {
        let c = try callable(f)
        let victim = HarnessActor.user("victim")
        try signUp([victim])
        let seeded = try seedVictimRows(readBy: c.body, victim: victim)
        let others = ([victim.uid, victim.email] + seeded.secrets).filter { !seeded.visible.contains($0.lowercased()) }
        // The fill the probe picks first, then each seeded key in every uuid argument.
        var tries: [FunctionProbe.Arguments?] = [nil]
        let uuidStems = Set(
            c.argTypes.indices.filter { i in (i < c.argBases.count ? c.argBases[i] : c.argTypes[i]) == "uuid" }.map {
                FunctionProbe.argumentStem($0 < c.argNames.count ? c.argNames[$0] : "")
            })
        if !uuidStems.isEmpty {
            for key in seeded.uuidKeys.prefix(6) {
                tries.append(
                    .init(
                        prefer: victim.uid, user: victim.uid, group: .init(key: key, type: "uuid", names: uuidStems)))
            }
        }
        var o = try FunctionProbe.probe(c, as: .anon, label: "anon", others: others, victim: victim.uid, conn)
        for args in tries.dropFirst() where !o.isFinding {
            let next = try FunctionProbe.probe(
                c, as: .anon, label: "anon", others: others, victim: victim.uid, arguments: args, conn)
            if next.isFinding || (o.refused != nil && next.refused == nil) { o = next }
        }
        let request = Self.rpcRequest(c)
        if let unfilled = o.unfilled { return .notProven(unfilled) }
        if let refused = o.refused { return .notProven("anon's call raised: \(refused)") }
        guard o.isFinding else {
            return .notProven(
                "anon's call succeeded but changed no row and returned no other user's row"
                    + (seeded.tables.isEmpty
                        ? "" : " (another user's rows seeded in \(seeded.tables.joined(separator: ", ")))"))
        }
        var effect: [String] = []
        if !o.writes.isEmpty { effect.append("wrote (\(o.writes.joined(separator: "; ")))") }
        if o.othersRows > 0 { effect.append("returned another user's rows") }
        if !o.privileged.isEmpty {
            effect.append("made the server send \(o.privileged.joined(separator: ", ")) (recorded, not sent)")
        }
        if !o.catalogChanges.isEmpty {
            effect.append("changed the catalog (\(o.catalogChanges.joined(separator: "; ")))")
        }
        return Self.proven(
            .anon, request: request, sql: "select * from \(AuditNames.function(c.schema, c.signature))",
            effect: effect.joined(separator: ", "), rows: Self.rowsWritten(o) + o.othersRows, keys: [])
    }

    /// The function the finding names, as the probe calls it, or why it cannot be called.
    func callable(_ f: Finding) throws -> FunctionProbe.Candidate {
        let candidates = try FunctionProbe.candidates(conn, exposedSchemas: [f.object.schema])
        guard let c = candidates.first(where: { $0.schema == f.object.schema && $0.signature == f.object.name }) else {
            throw Unprovable(
                reason: "rlskit does not call it: its body reaches outside the database or does what no test may")
        }
        if let why = FunctionProbe.unfillable(c) { throw Unprovable(reason: "rlskit cannot call it: \(why)") }
        return c
    }

    /// `POST /rest/v1/rpc/f`, with the profile header outside public.
    static func rpcRequest(_ c: FunctionProbe.Candidate) -> String {
        "POST /rest/v1/rpc/\(c.name)" + (c.schema == "public" ? "" : " (Content-Profile: \(c.schema))")
    }

    /// The rows a call's writes name ("public.notes: 1 inserted, 2 updated" is 3).
    static func rowsWritten(_ o: FunctionProbe.Outcome) -> Int {
        o.writes.reduce(0) { n, w in n + w.split(separator: " ").compactMap { Int($0) }.reduce(0, +) }
    }

    /// What seeding the victim's rows gave: the tables, the uuids that key them (arguments to
    /// try) and the values that mark a leaked row (only of rows anon cannot read directly).
    struct SeededRows {
        var tables: [String] = []
        var uuidKeys: [String] = []
        var secrets: [String] = []
        /// Markers (lower case) anon reads directly somewhere: a key of a readable row held by a
        /// private one (`visitor_id` of a form, the visitor public) is no secret either.
        var visible: Set<String> = []
    }

    /// One row of the victim's in each table the body reads (up to five); a table that cannot
    /// be seeded is left out.
    func seedVictimRows(readBy body: String, victim: HarnessActor) throws -> SeededRows {
        var out = SeededRows()
        var related: [TableInfo] = []
        for (i, name) in Self.tablesNamed(in: body).prefix(5).enumerated() {
            guard
                let row = try conn.query(
                    "select n.nspname::text as s, c.relname::text as t from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = to_regclass($1) and c.relkind in ('r', 'p')",
                    [name]
                ).rows.first
            else { continue }
            let t = try self.table(try row.decode("s"), try row.decode("t"))
            // Read by anon or not, seeded or not (a profile the sign-up made): what anon sees there counts.
            related.append(t)
            guard let key = try? seed(t, owner: victim.uid, ownerColumn: Self.ownerColumn(t), n: 40 + i) else {
                continue
            }
            out.tables.append(t.qualifiedName)
            let keyExpr = try keyExpression(t)
            let json: String? = try conn.query(
                "select to_jsonb(t)::text from \(t.sqlName) t where \(keyExpr) = $1", [key]
            ).rows.first?.decode(0)
            let values = Self.markers(json ?? "")
            out.uuidKeys += values.filter(Self.isUUID)
            // A row anon may read anyway is no secret: returning it leaks nothing.
            if case .read(_, let n) = try send(
                .anon, "select", on: t, try readSQL(t, filter: "\(keyExpr) = \(SQL.literal(key))")),
                n > 0
            {
                continue
            }
            out.secrets += values
        }
        out.visible = try visibleToAnon(out.secrets + [victim.uid, victim.email], in: related)
        out.secrets.removeAll { out.visible.contains($0.lowercased()) }
        return out
    }

    /// Which of `markers` anon reads directly in `tables` or the tables their foreign keys
    /// reference, as PostgREST would let it (lower case).
    func visibleToAnon(_ markers: [String], in tables: [TableInfo]) throws -> Set<String> {
        guard !markers.isEmpty else { return [] }
        var names = Set(tables.map(\.sqlName))
        for t in tables { for fk in t.foreignKeys where !fk.toAuthUsers { names.insert(fk.refName) } }
        var out = Set<String>()
        for name in names.sorted() {
            guard
                let row = try conn.query(
                    "select n.nspname::text as s, c.relname::text as t from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = to_regclass($1)",
                    [name]
                ).rows.first
            else { continue }
            let t = try self.table(try row.decode("s"), try row.decode("t"))
            let settings =
                HarnessActor.anon.impersonation()
                + APIRequest(schema: t.schema, table: t.name).settings("select", as: .anon)
            let seen = try undone(settings) { () throws -> [String] in
                try conn.query(
                    "select coalesce(array_agg(distinct lower(m)), '{}') as m from \(t.sqlName) r, unnest($1::text[]) m"
                        + " where strpos(lower(to_jsonb(r)::text), lower(m)) > 0",
                    [markers]
                ).rows[0].decode("m")
            }
            if case .success(let m) = seen { out.formUnion(m) }
        }
        return out
    }

    /// The values of a seeded row that no other row shares: uuids and the seeder's text values.
    static func markers(_ json: String) -> [String] {
        guard let data = json.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return object.values.compactMap { $0 as? String }.filter { isUUID($0) || $0.hasPrefix("rlskit-") }.sorted()
    }

    static func isUUID(_ s: String) -> Bool { s.count == 36 && s.filter { $0 == "-" }.count == 4 }
}
