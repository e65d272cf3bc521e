import Postgres

/// Calls each SECURITY DEFINER function of the exposed schemas that anon or authenticated may
/// execute, as anon and as a signed-in stranger who owns nothing, with arguments taken from
/// the database's rows (other users' ids), each call in a transaction that is rolled back, and
/// says what it did: rows it wrote (pg_stat_xact_user_tables) and rows it returned that name
/// another user.
enum FunctionProbe {
    public struct Outcome: Sendable, Equatable {
        /// `schema.name(argument types)`.
        public var function: String
        /// "anon" or "a stranger".
        public var caller: String
        /// "public.members: 1 updated", … (empty when it wrote nothing).
        public var writes: [String]
        /// Rows returned that contain another user's id.
        public var othersRows: Int
        /// The error that refused the call, when it raised.
        public var refused: String?
        /// A write or another user's rows, done by a caller that should get neither.
        public var isFinding: Bool { refused == nil && (!writes.isEmpty || othersRows > 0) }

        public var sentence: String {
            if let refused { return "\(function) as \(caller): refused (\(refused))" }
            var parts: [String] = []
            if !writes.isEmpty { parts.append("wrote " + writes.joined(separator: ", ")) }
            if othersRows > 0 { parts.append("returned \(othersRows) row\(othersRows == 1 ? "" : "s") of other users") }
            return "\(function) as \(caller): "
                + (parts.isEmpty ? "did nothing visible" : parts.joined(separator: "; "))
        }
    }

    /// Bodies that reach outside the database synchronously are never called (pg_net only
    /// queues requests, and the rollback drops the queue).
    static let outside = [
        "dblink", "http_get", "http_post", "http_put", "http_delete", "http_patch", "extensions.http(",
    ]
    static let supported: Set<String> = [
        "uuid", "integer", "bigint", "smallint", "text", "character varying", "boolean", "numeric", "jsonb", "json",
    ]

    struct Candidate {
        var schema, name, signature, body: String
        var argNames, argTypes: [String]
        var anon, authenticated: Bool
    }

    public static func run(_ conn: PostgresConnection, exposedSchemas: [String]) throws -> [Outcome] {
        let schemas =
            "{"
            + exposedSchemas.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
        let candidates = try conn.query(candidatesSQL, [schemas]).rows.map { r in
            Candidate(
                schema: try r.decode("schema"), name: try r.decode("fname"), signature: try r.decode("signature"),
                body: try r.decode("body"), argNames: try r.decode("argnames"), argTypes: try r.decode("argtypes"),
                anon: try r.decode("anon"), authenticated: try r.decode("authenticated"))
        }
        let columns = try conn.query(columnsSQL, [schemas]).rows.map { r in
            (
                schema: try r.decode("schema") as String, table: try r.decode("table_name") as String,
                column: try r.decode("column_name") as String, type: try r.decode("type") as String
            )
        }
        var out: [Outcome] = []
        for c in candidates {
            let lower = c.body.lowercased()
            guard !outside.contains(where: { lower.contains($0) }), c.argTypes.allSatisfy(supported.contains) else {
                continue
            }
            let callers = (c.anon ? [HarnessActor.anon] : []) + (c.authenticated ? [HarnessActor.user("stranger")] : [])
            for actor in callers {
                out.append(try probe(c, as: actor, columns: columns, conn))
            }
        }
        return out
    }

    static func probe(
        _ c: Candidate, as actor: HarnessActor,
        columns: [(schema: String, table: String, column: String, type: String)], _ conn: PostgresConnection
    ) throws -> Outcome {
        let function = AuditNames.function(c.schema, c.signature)
        let caller = actor.kind == .anon ? "anon" : "a stranger"
        try conn.query("BEGIN")
        defer { _ = try? conn.query("ROLLBACK") }
        let others: [String] = try conn.query("select id::text from auth.users order by created_at nulls last, id")
            .rows.map { try $0.decode(0) }
        var values: [String] = []
        for (name, type) in zip(c.argNames, c.argTypes) {
            values.append(try value(for: name, type: type, columns: columns, others: others, conn))
        }
        let before = try stats(conn)
        let args = c.argTypes.indices.map { "$\($0 + 1)::\(c.argTypes[$0])" }
        let call =
            "select count(*) filter (where to_jsonb(r)::text ~ $\(values.count + 1)) from \(SQL.qualified(c.schema, c.name))(\(args.joined(separator: ", "))) r"
        let pattern = others.isEmpty ? "^$x" : "(" + others.joined(separator: "|") + ")"
        try conn.query("SAVEPOINT probe")
        var othersRows = 0
        var refused: String?
        do {
            try conn.query(actor.impersonation())
            othersRows = Int(try conn.query(call, values + [pattern]).rows.first?.decode(0) as Int64? ?? 0)
            try conn.query("select set_config('role', 'none', true), set_config('request.jwt.claims', '', true)")
        } catch let e as PostgresError {
            refused = e.message
            try conn.query("ROLLBACK TO SAVEPOINT probe")
        }
        let after = try stats(conn)
        var writes: [String] = []
        for (table, counts) in after.sorted(by: { $0.key < $1.key }) where refused == nil {
            let b = before[table] ?? (0, 0, 0)
            let d = [(counts.0 - b.0, "inserted"), (counts.1 - b.1, "updated"), (counts.2 - b.2, "deleted")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            if !d.isEmpty { writes.append("\(table): " + d.joined(separator: ", ")) }
        }
        return Outcome(function: function, caller: caller, writes: writes, othersRows: othersRows, refused: refused)
    }

    /// A value for one argument: a row's value of the column it is named after, else another
    /// user's id for a uuid, else a plain constant.
    static func value(
        for name: String, type: String, columns: [(schema: String, table: String, column: String, type: String)],
        others: [String], _ conn: PostgresConnection
    ) throws -> String {
        var stem = name.lowercased()
        for prefix in ["p_", "in_", "_", "target_"] where stem.hasPrefix(prefix) { stem.removeFirst(prefix.count) }
        let entity = stem.hasSuffix("_id") ? String(stem.dropLast(3)) : stem
        let match =
            columns.first { $0.column == stem && $0.type == type }
            ?? columns.first {
                ($0.table == entity || $0.table == entity + "s") && $0.column == "id" && $0.type == type
            }
        if let m = match,
            let v: String = try conn.query(
                "select \(SQL.ident(m.column))::text from \(SQL.qualified(m.schema, m.table)) where \(SQL.ident(m.column)) is not null limit 1"
            ).rows.first?.decode(0)
        {
            return v
        }
        switch type {
        case "uuid": return others.first ?? "00000000-0000-0000-0000-000000000001"
        case "boolean": return "true"
        case "jsonb", "json": return "{}"
        case "text", "character varying": return "probe"
        default: return "1"
        }
    }

    static func stats(_ conn: PostgresConnection) throws -> [String: (Int64, Int64, Int64)] {
        var out: [String: (Int64, Int64, Int64)] = [:]
        for r in try conn.query(
            "select schemaname, relname, n_tup_ins, n_tup_upd, n_tup_del from pg_catalog.pg_stat_xact_user_tables"
        ).rows {
            out[AuditNames.qualified(try r.decode(0), try r.decode(1))] = (
                try r.decode(2), try r.decode(3), try r.decode(4)
            )
        }
        return out
    }

    static let candidatesSQL = """
        select n.nspname as schema, p.proname as fname,
               p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')' as signature, p.prosrc as body,
               array(select coalesce(u.nm, '') from unnest(coalesce(p.proargnames, array_fill(''::text, array[p.pronargs])),
                                                           coalesce(p.proargmodes::text[], array_fill('i'::text, array[p.pronargs]))) u(nm, md)
                     where u.md in ('i', 'b')) as argnames,
               array(select pg_catalog.format_type(t, null) from unnest(p.proargtypes) with ordinality x(t, i) order by i) as argtypes,
               has_function_privilege('anon', p.oid, 'EXECUTE') and has_schema_privilege('anon', n.oid, 'USAGE') as anon,
               has_function_privilege('authenticated', p.oid, 'EXECUTE')
                 and has_schema_privilege('authenticated', n.oid, 'USAGE') as authenticated
        from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        where p.prosecdef and p.prokind = 'f' and n.nspname = any($1::text[])
          and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
          and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
          and (has_function_privilege('anon', p.oid, 'EXECUTE') or has_function_privilege('authenticated', p.oid, 'EXECUTE'))
        order by 1, 3
        """

    static let columnsSQL = """
        select n.nspname as schema, c.relname as table_name, a.attname as column_name,
               pg_catalog.format_type(a.atttypid, null) as type
        from pg_catalog.pg_attribute a join pg_catalog.pg_class c on c.oid = a.attrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = any($1::text[]) and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
        order by 1, 2, a.attnum
        """
}
