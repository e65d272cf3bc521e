import Postgres

/// The keys a failed check's proof names: the existing row it read or changed, by its primary
/// key (else a unique key, else its ctid), or for an insert the columns of the new row that
/// point at other rows (whose group or owner it wrote into).
extension Blame {
    func keys(_ check: PolicyCheck) throws(PostgresError) -> [String]? {
        guard let row = check.row, check.statements.count >= 2 else { return nil }
        do { try conn.query("savepoint rlskit_keys") } catch { return nil }
        defer { _ = try? conn.query("rollback to savepoint rlskit_keys") }
        do {
            for s in check.statements.dropLast(2) { try conn.query(s) }
            if let existing = row.existing {
                let expr = Self.keyExpression(try keyColumns(row.table))
                return try conn.query(
                    "select \(expr) from \(row.table) where \(existing) limit \(Proof.keyLimit)"
                ).rows.map { $0.values[0] ?? "" }
            }
            guard let ins = row.insert else { return nil }
            let pointing: [String] = try conn.query(
                """
                select distinct a.attname::text from pg_constraint c
                  cross join unnest(c.conkey) k(n) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n
                 where c.conrelid = to_regclass($1) and c.contype = 'f'
                """, [row.table]
            ).rows.map { $0.values[0] ?? "" }
            let pairs = zip(ins.columns, ins.values).filter { pointing.map { SQL.ident($0) }.contains($0.0) }
            guard !pairs.isEmpty else { return nil }
            // The values as the check computed them (parents' keys are settings of the transaction).
            try conn.query(check.statements[check.statements.count - 2])
            let parts = pairs.map { c, v in "\(SQL.literal(Self.unquoted(c) + "=")) || coalesce((\(v))::text, 'null')" }
            let line: String? = try conn.query("select concat_ws(', ', \(parts.joined(separator: ", ")))").rows.first?
                .values[0]
            return line.map { [$0] }
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            return nil
        } catch { return nil }
    }

    /// The primary key's columns, else the first unique key's, else none.
    func keyColumns(_ table: String) throws -> [String] {
        try conn.query(
            """
            select a.attname::text from pg_index i cross join unnest(i.indkey) with ordinality k(n, o)
              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n
             where i.indexrelid = (select x.indexrelid from pg_index x where x.indrelid = to_regclass($1)
                                     and (x.indisprimary or (x.indisunique and 0 <> all(x.indkey::int2[])))
                                   order by x.indisprimary desc, x.indexrelid limit 1)
             order by k.o
            """, [table]
        ).rows.map { $0.values[0] ?? "" }
    }

    /// `id=1`, `org_id=…, user_id=…`, or `ctid=(0,1)` without a key.
    static func keyExpression(_ columns: [String]) -> String {
        guard !columns.isEmpty else { return "'ctid=' || ctid::text" }
        return "concat_ws(', ', "
            + columns.map { "\(SQL.literal($0 + "=")) || coalesce(\(SQL.ident($0))::text, 'null')" }.joined(
                separator: ", ") + ")"
    }

    static func unquoted(_ ident: String) -> String {
        ident.hasPrefix("\"") && ident.hasSuffix("\"") && ident.count >= 2
            ? String(ident.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"") : ident
    }
}
