import Postgres

/// Sequences behind the rows of the column they fill: a seed that inserts explicit ids
/// (`insert … values (1, …), (2, …)`) and no `setval` leaves the sequence at 1, so the next
/// insert that takes the default fails with a duplicate key, the app's as well as the harness's.
struct SequenceLag: Equatable, Sendable {
    var schema, table, column, sequence: String
    /// The column's largest value, and the value the sequence would give next.
    var highest, next: Int64

    var label: String { SQL.display(schema) + "." + SQL.display(table) + "." + SQL.display(column) }

    /// Integer columns whose default is a sequence's next value (serial, identity, or a default
    /// `nextval` of any sequence), with sequences counting up: the candidates, in one query.
    static let candidatesSQL = """
        select n.nspname::text as schema, c.relname::text as table_name, a.attname::text as column_name,
               sn.nspname::text as seq_schema, sc.relname::text as seq_name, s.seqincrement as increment
          from pg_catalog.pg_depend d
          join pg_catalog.pg_attrdef ad on d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
                                        and ad.oid = d.objid
          join pg_catalog.pg_class c on c.oid = ad.adrelid
          join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
          join pg_catalog.pg_sequence s on s.seqrelid = d.refobjid
          join pg_catalog.pg_class sc on sc.oid = s.seqrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          join pg_catalog.pg_namespace sn on sn.oid = sc.relnamespace
         where d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
        union
        select n.nspname::text, c.relname::text, a.attname::text, sn.nspname::text, sc.relname::text, s.seqincrement
          from pg_catalog.pg_depend d
          join pg_catalog.pg_sequence s on s.seqrelid = d.objid
          join pg_catalog.pg_class sc on sc.oid = s.seqrelid
          join pg_catalog.pg_class c on c.oid = d.refobjid
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = d.refobjsubid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          join pg_catalog.pg_namespace sn on sn.oid = sc.relnamespace
         where d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass and d.deptype = 'i'
        """

    /// Each lagging sequence (its column's highest value at or past the sequence's next one).
    /// Only integer columns of plain tables outside the system schemas count; a table this
    /// connection may not read is left out.
    static func find(_ conn: PostgresConnection) throws -> [SequenceLag] {
        struct Candidate {
            var schema, table, column, seqSchema, seqName: String
            var increment: Int64
        }
        var found: [Candidate] = []
        for r in try conn.query(filteredSQL).rows {
            found.append(
                Candidate(
                    schema: try r.decode("schema"), table: try r.decode("table_name"),
                    column: try r.decode("column_name"), seqSchema: try r.decode("seq_schema"),
                    seqName: try r.decode("seq_name"), increment: try r.decode("increment")))
        }
        guard !found.isEmpty else { return [] }
        // One round trip for all of them: each column's max and each sequence's next value.
        let parts = found.enumerated().map { i, c in
            let seq = SQL.qualified(c.seqSchema, c.seqName)
            return """
                select \(i) as i, (select max(\(SQL.ident(c.column)))::bigint from \(SQL.qualified(c.schema, c.table))) as highest,
                       s.last_value as last, s.is_called as called from \(seq) s
                """
        }
        var out: [SequenceLag] = []
        let rows: [PostgresRow]
        do { rows = try conn.query(parts.joined(separator: "\nunion all\n")).rows } catch { return [] }
        for r in rows {
            guard let highest = try r.decode("highest") as Int64? else { continue }
            let (last, called): (Int64, Bool) = (try r.decode("last"), try r.decode("called"))
            let c = found[Int(try r.decode("i") as Int32)]
            let next = called ? last &+ c.increment : last
            if highest >= next {
                out.append(
                    SequenceLag(
                        schema: c.schema, table: c.table, column: c.column,
                        sequence: SQL.qualified(c.seqSchema, c.seqName),
                        highest: highest, next: next))
            }
        }
        return out
    }

    static var filteredSQL: String {
        """
        select * from (\(candidatesSQL)) s(schema, table_name, column_name, seq_schema, seq_name, increment)
         where increment > 0
           and schema not in ('pg_catalog', 'information_schema', 'rlskit') and schema not like 'pg\\_%'
           and exists (select 1 from pg_catalog.pg_attribute a
                         join pg_catalog.pg_class c on c.oid = a.attrelid
                         join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                        where n.nspname = s.schema and c.relname = s.table_name and a.attname = s.column_name
                          and c.relkind in ('r', 'p')
                          and a.atttypid in ('pg_catalog.int2'::pg_catalog.regtype, 'pg_catalog.int4'::pg_catalog.regtype,
                                             'pg_catalog.int8'::pg_catalog.regtype))
         order by schema, table_name, column_name
        """
    }

    /// Moves each lagging sequence past its column's highest value, so that rows the harness
    /// inserts with the default get ids no row holds. Forward only: the ids it skips were never
    /// given out, so none is given out twice.
    static func catchUp(_ conn: PostgresConnection) -> [SequenceLag] {
        guard let lags = try? find(conn) else { return [] }
        return lags.filter { lag in
            (try? conn.query(
                "select pg_catalog.setval($1::text::pg_catalog.regclass, $2::bigint)",
                [lag.sequence, String(lag.highest)]))
                != nil
        }
    }

    /// What a seed that left sequences behind gets told (the app's first insert would fail).
    static func warning(_ lags: [SequenceLag]) -> String {
        let named = lags.prefix(3).map { "\($0.label) (rows up to \($0.highest), next value \($0.next))" }
        let more = lags.count > 3 ? " and \(lags.count - 3) more" : ""
        let first = lags[0]
        return "warning: the seed left the sequence\(lags.count == 1 ? "" : "s") of "
            + named.joined(separator: ", ") + more
            + " behind its rows: the next insert that takes the default fails with a duplicate key; end the seed with "
            + "select setval('\(first.sequence.replacingOccurrences(of: "'", with: "''"))', (select max(\(SQL.ident(first.column))) from \(SQL.qualified(first.schema, first.table))))"
    }
}
