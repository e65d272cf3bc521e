import Postgres

/// What an INSERT into a table creates, for `with check (true)`: the caller's own row (a CHECK
/// ties a column to auth.uid(), or a BEFORE INSERT trigger sets one to it), or a public form
/// entry (no API role may read the table, and nothing in it names a user).
struct InsertTarget: Sendable {
    /// Columns defaulting to auth.uid().
    var uidDefaults: [String]
    /// CHECK constraints, as the server prints them.
    var checks: [String]
    /// Bodies of the BEFORE INSERT row triggers.
    var triggerBodies: [String]
    var referencesUsers: Bool

    /// How the row is tied to the caller, nil when it is not.
    var ownRow: String? {
        if let c = checks.first(where: { PolicyExpression($0).hasIdentity }) { return "a check constraint (\(c))" }
        for body in triggerBodies {
            let b = FunctionBody(body)
            for i in b.words.indices
            where b.key(i) == "new" && b.key(i + 1) == "." && [":=", "="].contains(b.key(i + 3)) {
                let rhs = ((i + 4)..<min(i + 10, b.words.count)).map { b.key($0) }
                if let a = rhs.firstIndex(of: "auth"), a + 2 < rhs.count, rhs[a + 1] == ".", rhs[a + 2] == "uid" {
                    return "a trigger that sets \(b.words[i + 2].text) to auth.uid()"
                }
            }
        }
        return nil
    }

    /// Nothing in the row says whose it is.
    var namesNoUser: Bool { !referencesUsers && uidDefaults.isEmpty }
}

extension CatalogDataset {
    static let insertTargetsSQL = """
        select n.nspname as schema, c.relname as table_name,
          coalesce((select array_agg(a.attname::text order by a.attnum) from pg_catalog.pg_attribute a
                    join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
                    where a.attrelid = c.oid and not a.attisdropped
                      and pg_catalog.pg_get_expr(d.adbin, d.adrelid) ~ 'auth\\.uid\\(\\)'), '{}') as uid_defaults,
          coalesce((select array_agg(pg_catalog.pg_get_constraintdef(k.oid)) from pg_catalog.pg_constraint k
                    where k.conrelid = c.oid and k.contype = 'c'), '{}') as checks,
          coalesce((select array_agg(p.prosrc) from pg_catalog.pg_trigger t join pg_catalog.pg_proc p on p.oid = t.tgfoid
                    where t.tgrelid = c.oid and not t.tgisinternal and t.tgenabled <> 'D'
                      and (t.tgtype & 1) <> 0 and (t.tgtype & 2) <> 0 and (t.tgtype & 4) <> 0), '{}') as triggers,
          exists (select 1 from pg_catalog.pg_constraint k join pg_catalog.pg_class r on r.oid = k.confrelid
                  join pg_catalog.pg_namespace rn on rn.oid = r.relnamespace
                  where k.conrelid = c.oid and k.contype = 'f' and rn.nspname = 'auth' and r.relname = 'users') as users
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname || '.' || c.relname = any($1::text[])
        """
}

extension AuditCatalog {
    /// Reads the tables that an INSERT policy `with check (true)` opens, only when there are any.
    mutating func loadInsertTargets(_ conn: PostgresConnection) throws {
        let tables = Set(policies.filter { $0.command == "INSERT" && $0.checkExpr?.isTrue == true }.map(\.tableName))
        guard !tables.isEmpty else { return }
        for r in try conn.query(CatalogDataset.insertTargetsSQL, [Auditor.postgresArray(tables.sorted())]).rows {
            let key: String = try r.decode("schema") + "." + (try r.decode("table_name") as String)
            insertTargets[key] = InsertTarget(
                uidDefaults: try r.decode("uid_defaults"), checks: try r.decode("checks"),
                triggerBodies: try r.decode("triggers"), referencesUsers: try r.decode("users"))
        }
    }
}
