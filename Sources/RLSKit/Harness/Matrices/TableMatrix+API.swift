/// Writes as supabase-js also sends them: `insert(…).select()` (`Prefer: return=representation`,
/// so RETURNING, which makes PostgreSQL check the SELECT policies on the new row) and upserts (`on conflict (key) do update`, PostgREST's
/// `resolution=merge-duplicates`) on a unique key the client can send.
extension TableMatrix {
    func apiChecks() -> [PolicyCheck] {
        // No update(…).select(): an UPDATE with a filter already checks the SELECT policies on the new row.
        guard let read = intent.read, read.allows(Self.own) else { return [] }  // nothing to read back
        var checks: [PolicyCheck] = []
        func add(
            _ u: HarnessActor, _ op: String, _ name: String, _ setup: [String], _ sql: String, _ e: Expectation,
            prefer: String, readBackOf: String? = nil
        ) {
            var c = PolicyCheck(
                suite: info.qualifiedName, actor: u.label, operation: op, name: name,
                statements: setup + [u.impersonation() + request.settings(op, as: u, prefer: prefer), sql],
                expectations: [e], location: intent.location)
            c.readBackOf = readBackOf
            checks.append(c)
        }
        let clearA = ownerUnique ? ["delete from \(t) where \(whereOwner(a))"] : []
        if intent.insert!.allows(Self.own) {
            add(
                a, "insert", "A inserts own row and reads it back", clearA,
                seeder.insert(owner: a.uid, n: counter + 900, returning: true), .allowed,
                prefer: "return=representation", readBackOf: "A inserts own row")
        }
        // An upsert that sends nothing but its key changes nothing: no check.
        if let key = upsertKey, !updated(key, upsertRow(owner: a.uid, n: counter + 950, key).columns).isEmpty {
            let merge = "resolution=merge-duplicates"
            let both = intent.insert!.allows(Self.own) && intent.update!.allows(Self.own)
            // A key of the owner alone finds the user's row however it was made (a sign-up trigger
            // too); any other key gets a row of its own, as service_role, so that the upsert hits it.
            let ownKey = key == [intent.owner]
            func target(_ u: HarnessActor, _ n: Int) -> [String] {
                ownKey ? [] : asService(seeder.insert(owner: u.uid, n: n))
            }
            let nA = counter + 950
            let nB = counter + 951
            add(
                a, "insert", "A upserts own row", target(a, nA), upsert(owner: a.uid, n: nA, key),
                both ? .allowed : .blocked, prefer: merge)
            // The proposed row carries B's key: with the owner in the key it must name B, else it names A (a takeover).
            let owner = key.contains(intent.owner) ? b.uid : a.uid
            add(
                a, "insert", "A upserts onto B's row", target(b, nB), upsert(owner: owner, n: nB, key), .blocked,
                prefer: merge)
            let nAnon = counter + 952
            add(
                .anon, "insert", "anon upserts onto A's row", target(a, nAnon), upsert(owner: a.uid, n: nAnon, key),
                intent.insert!.allows(Self.nobody) && intent.update!.allows(Self.nobody) ? .allowed : .blocked,
                prefer: merge)
        }
        return checks
    }

    func asService(_ sql: String) -> [String] {
        serviceRole
            ? ["select set_config('role', 'service_role', true)", sql, "select set_config('role', null, true)"]
            : [sql]
    }

    /// `insert … on conflict (key) do update set` every sent column, as PostgREST writes an upsert.
    /// `n` is the target row's number, so the key values are those of that row.
    func upsert(owner: String, n: Int, _ key: [String]) -> String {
        let r = upsertRow(owner: owner, n: n, key)
        return "insert into \(t) (\(r.columns.joined(separator: ", "))) values (\(r.values.joined(separator: ", ")))"
            + " on conflict (\(key.map { SQL.ident($0) }.joined(separator: ", "))) do update set "
            + updated(key, r.columns).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    /// The row an upsert sends: the seeded columns, plus a column to change when those are only
    /// the key (as a client sends what it edits: `upsert({ id, full_name })`).
    func upsertRow(owner: String, n: Int, _ key: [String]) -> (columns: [String], values: [String]) {
        var r = seeder.row(owner: owner, n: n)
        if updated(key, r.columns).isEmpty, let c = info.column(touchName), !key.contains(c.name),
            let v = Seeder.value(for: c, n: n)
        {
            r.columns.append(SQL.ident(c.name))
            r.values.append(v)
        }
        return r
    }

    /// The plain column a no-op update would touch, unquoted.
    var touchName: String {
        let keys = Set(info.uniqueKeys.flatMap { $0 })
        return info.columns.first { $0.writable && $0.name != intent.owner && !keys.contains($0.name) }?.name
            ?? intent.owner
    }

    /// The columns an upsert changes: those sent, the conflict key left out (it is equal by
    /// definition, and a column privilege may rightly not cover it).
    func updated(_ key: [String], _ columns: [String]) -> [String] {
        let keys = Set(key.map { SQL.ident($0) })
        return columns.filter { !keys.contains($0) }
    }

    /// A unique key a client could send (every column written by the seeder with a value that is
    /// the same each time for the same row), the owner's own key first; nil when there is none.
    var upsertKey: [String]? {
        let keys = info.uniqueKeys.filter { $0.allSatisfy(repeatable) }
        return keys.first { $0 == [intent.owner] } ?? keys.first
    }

    func repeatable(_ column: String) -> Bool {
        if column == intent.owner { return true }
        if let s = intent.seeds.first(where: { $0.column == column }) {
            let e = s.expression.lowercased()
            return (e.contains("{n}") || e.contains("{owner}"))
                && !["random", "uuid", "clock_timestamp", "nextval"].contains { e.contains($0) }
        }
        guard let c = info.column(column), seeder.needsValue(c) else { return false }  // identity or default-only
        return c.references == nil && Seeder.value(for: c, n: 0).map { !$0.contains("random") } == true
    }
}
