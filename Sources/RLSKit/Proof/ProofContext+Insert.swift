import Postgres

/// An exploit's insert of a row as another user's. The victim's row is already there, so a
/// unique key can refuse the copy for a reason no policy gives: then it is sent again with the
/// key's free columns fresh, or, where the key holds the owner with columns that cannot change
/// (`unique (org_id, user_id)`), with the attacker's own id: joining another user's group as
/// oneself is the hole such a policy leaves.
extension ProofContext {
    struct Insert {
        var sql: String
        var outcome: Outcome
        /// The columns of another user's row the attacker's own row took ("organization_id"),
        /// when the owner column holds the attacker.
        var own: [String]?
    }

    func insertAsOthers(_ t: TableInfo, owner: String, victim: HarnessActor, attacker: HarnessActor) throws -> Insert {
        let intent = TableIntent(
            schema: t.schema, name: t.name, owner: owner, location: SourceLocation(file: "proof", line: 0))
        var fixed: [String: String] = [:]
        var own: [String]?
        var tried = Set<String>()
        var last: Insert?
        for round in 0..<4 {
            let seeder = Seeder(table: t, intent: intent, fixed: fixed)
            var r = seeder.row(owner: victim.uid, n: 2 + round)
            if own != nil, let i = r.columns.firstIndex(of: SQL.ident(owner)), let c = t.column(owner) {
                r.values[i] = SQL.literal(attacker.uid) + "::" + c.type
            }
            let sql = "insert into \(t.sqlName)" + InsertSQL.values(r.columns, r.values, overriding: seeder.overriding)
            let outcome = try send(attacker, "insert", on: t, sql)
            last = Insert(sql: sql, outcome: outcome, own: own)
            guard case .failed(let e) = outcome, e.sqlState == "23505", let name = e.constraint,
                !tried.contains(name), let key = try uniqueColumns(t, name)
            else { break }
            tried.insert(name)
            let tied = Set(t.foreignKeys.flatMap(\.columns))
            var changed = false
            for c in key where c != owner && fixed[c] == nil && !tied.contains(c) {
                guard let col = t.column(c), col.writable, let v = Self.fresh(col, t, round) else { continue }
                fixed[c] = v
                changed = true
            }
            if !changed, own == nil, key.contains(owner), attacker.kind == .user {
                own = key.filter { $0 != owner }
                changed = true
            }
            if !changed { break }
        }
        return last!
    }

    /// Another value than the seeder's first: the next enum label, else one for another n.
    static func fresh(_ c: TableInfo.ColumnInfo, _ t: TableInfo, _ round: Int) -> String? {
        if c.category == "E", c.enumLabels.count > 1, t.checks[c.name] == nil {
            return SQL.literal(c.enumLabels[(round + 1) % c.enumLabels.count]) + "::" + c.type
        }
        return Seeder.derived(c, checks: t.checks[c.name] ?? [], n: 900 + round)
    }

    /// The columns of the unique index (or constraint) `name` on `t`, nil when it has expressions.
    func uniqueColumns(_ t: TableInfo, _ name: String) throws -> [String]? {
        let row = try conn.query(
            """
            select array(select a.attname::text from unnest(i.indkey) with ordinality k(n, o)
                          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.o) as cols,
                   not (0 = any(i.indkey::int2[])) as plain
              from pg_index i join pg_class c on c.oid = i.indexrelid
             where i.indrelid = to_regclass($1) and c.relname = $2
            """, [t.sqlName, name]
        ).rows.first
        guard let row, try row.decode("plain", as: Bool.self) else { return nil }
        return try row.decode("cols")
    }
}
