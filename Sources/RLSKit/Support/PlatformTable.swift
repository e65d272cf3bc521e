import Postgres

/// Reading a table the platform defines but a project may replace (storage.buckets) without
/// running the project's code with the reader's rights. A view over a function, a rule, a
/// policy that applies to the reader, a virtual generated column or a type with the project's
/// casts would each run it; catalogs never do. So the relation (and every child of it) must be
/// a plain table with no rules, the columns read of built-in types; it is locked first (no one
/// can swap it in between) and read with row_security off, so that a policy could only make
/// the read fail, never run. Otherwise it is not read, and the reason is one line.
enum PlatformTable {
    /// A relation that was not read, and why, as the audit, the lock file and the draft say it.
    struct Unread: Sendable, Equatable {
        var schema: String
        var table: String
        var reason: String
        var name: String { SQL.qualified(schema, table) }
        var line: String { "\(name) not read: \(reason)" }
    }

    enum Outcome {
        case absent
        case rows([PostgresRow])
        case unread(Unread)
    }

    /// `select` is the select list over `schema.table`'s `columns` (which it must name alone),
    /// `order` an ORDER BY list of them.
    static func read(
        _ conn: PostgresConnection, _ schema: String, _ table: String, columns: [String], select: String,
        order: String? = nil
    ) throws -> Outcome {
        let name = SQL.qualified(schema, table)
        let exists: Bool = try conn.query("select pg_catalog.to_regclass($1) is not null", [name]).rows[0].decode(0)
        guard exists else { return .absent }
        if let reason = try problem(conn, name, columns: columns) {
            return .unread(Unread(schema: schema, table: table, reason: reason))
        }
        let own = !conn.inTransaction
        try conn.query(own ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "SAVEPOINT rlskit_platform_read")
        defer {
            _ = try? conn.query(own ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT rlskit_platform_read")
            if !own { _ = try? conn.query("RELEASE SAVEPOINT rlskit_platform_read") }
        }
        do {
            // Locking a view or table runs nothing of the project's; it keeps the checks true until the read.
            try conn.query("LOCK TABLE \(name) IN ACCESS SHARE MODE")
        } catch let e as PostgresError where !e.isConnectionFailure {
            return .unread(Unread(schema: schema, table: table, reason: "cannot lock it for reading (\(e.message))"))
        }
        // Again under the lock: what was checked before it could have changed.
        if let reason = try problem(conn, name, columns: columns) {
            return .unread(Unread(schema: schema, table: table, reason: reason))
        }
        try conn.query("select pg_catalog.set_config('row_security', 'off', true)")
        return .rows(try conn.query("select \(select) from \(name)" + (order.map { " order by " + $0 } ?? "")).rows)
    }

    /// Why reading `name` could run the project's code; nil when it cannot.
    static func problem(_ conn: PostgresConnection, _ name: String, columns: [String]) throws -> String? {
        let r = try conn.query(checkSQL, [name, columns]).rows[0]
        let kinds = ["v": "a view", "m": "a materialized view", "f": "a foreign table"]
        if let kind: String = try r.decode("kind"), kind != "r" && kind != "p" {
            return
                "it is \(kinds[kind] ?? "not a table"), whose reading would run the project's code with rlskit's rights"
        }
        if let odd: String = try r.decode("odd_child") {
            return "it has \(odd), not a plain table, among its children"
        }
        if try r.decode("rules") as Bool { return "it has rules, which could run the project's code on reading" }
        if try r.decode("rls") as Bool {
            return "row level security applies to \(try r.decode("reader") as String) there, so its policies would run"
        }
        let odd: [String] = try r.decode("odd_columns")
        if !odd.isEmpty {
            return
                "its columns \(odd.joined(separator: ", ")) are not plain built-in columns (a project's type, a computed column)"
        }
        let missing: [String] = try r.decode("missing")
        if !missing.isEmpty { return "it has no column \(missing.joined(separator: ", "))" }
        return nil
    }

    /// Only catalogs and built-in functions: `$1` the relation, `$2` the columns read.
    static let checkSQL = """
        with recursive tree(oid) as (
          select pg_catalog.to_regclass($1)::oid
          union select i.inhrelid from pg_catalog.pg_inherits i join tree t on i.inhparent = t.oid)
        select (select c.relkind::text from pg_catalog.pg_class c where c.oid = pg_catalog.to_regclass($1)) as kind,
               (select c.oid::regclass::text from tree t join pg_catalog.pg_class c on c.oid = t.oid
                 where c.relkind not in ('r', 'p') limit 1) as odd_child,
               exists (select 1 from tree t join pg_catalog.pg_rewrite w on w.ev_class = t.oid) as rules,
               pg_catalog.row_security_active(pg_catalog.to_regclass($1)) as rls,
               current_user::text as reader,
               array(select distinct a.attname::text from tree t
                       join pg_catalog.pg_attribute a on a.attrelid = t.oid
                       join pg_catalog.pg_type y on y.oid = a.atttypid
                      where a.attname = any($2::text[]) and a.attnum > 0 and not a.attisdropped
                        and (y.typnamespace <> 'pg_catalog'::regnamespace or y.typtype <> 'b'
                             or a.attgenerated::text not in ('', 's'))
                      order by 1) as odd_columns,
               array(select n from unnest($2::text[]) n
                      where not exists (select 1 from pg_catalog.pg_attribute a
                                        where a.attrelid = pg_catalog.to_regclass($1) and a.attname = n
                                          and a.attnum > 0 and not a.attisdropped)) as missing
        """
}
