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

    struct Column { var schema, table, column, type: String }

    struct Candidate {
        var schema, name, signature, body: String
        var argNames, argTypes: [String]
        var anon, authenticated: Bool
        var columns: [Column]
    }

    public static func run(_ conn: PostgresConnection, exposedSchemas: [String]) throws -> [Outcome] {
        let others: [String] = try conn.query("select id::text from auth.users order by created_at nulls last, id")
            .rows.map { try $0.decode(0) }
        let callers = [(HarnessActor.anon, "anon", others), (HarnessActor.user("stranger"), "a stranger", others)]
        var out: [Outcome] = []
        for c in try candidates(conn, exposedSchemas: exposedSchemas) {
            for (actor, label, others) in callers where actor.kind == .anon ? c.anon : c.authenticated {
                try conn.query("BEGIN")
                defer { _ = try? conn.query("ROLLBACK") }
                out.append(try probe(c, as: actor, label: label, others: others, conn))
            }
        }
        return out
    }

    /// The functions it may call: callable by an API role, arguments it can fill, nothing
    /// reaching outside the database.
    static func candidates(_ conn: PostgresConnection, exposedSchemas: [String]) throws -> [Candidate] {
        let schemas =
            "{"
            + exposedSchemas.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
        let columns = try conn.query(columnsSQL, [schemas]).rows.map { r in
            Column(
                schema: try r.decode("schema"), table: try r.decode("table_name"), column: try r.decode("column_name"),
                type: try r.decode("type"))
        }
        return try conn.query(candidatesSQL, [schemas]).rows.map { r in
            Candidate(
                schema: try r.decode("schema"), name: try r.decode("fname"), signature: try r.decode("signature"),
                body: try r.decode("body"), argNames: try r.decode("argnames"), argTypes: try r.decode("argtypes"),
                anon: try r.decode("anon"), authenticated: try r.decode("authenticated"), columns: columns)
        }.filter { c in
            let lower = c.body.lowercased()
            return !outside.contains(where: { lower.contains($0) }) && c.argTypes.allSatisfy(supported.contains)
        }
    }

    /// One call as `actor` inside the caller's open transaction, undone by a savepoint.
    /// `others` are the user ids whose rows the caller must not get; the first is the victim
    /// whose id fills a uuid argument nothing else fills.
    static func probe(
        _ c: Candidate, as actor: HarnessActor, label: String, others: [String], victim: String? = nil,
        _ conn: PostgresConnection
    ) throws -> Outcome {
        let victim = victim ?? others.first
        let function = AuditNames.function(c.schema, c.signature)
        try conn.query("SAVEPOINT rlskit_probe")
        // A function that loops or sleeps is refused, not waited for; undone with the savepoint.
        try conn.query("select set_config('statement_timeout', '5s', true)")
        defer {
            _ = try? conn.query("ROLLBACK TO SAVEPOINT rlskit_probe")
            _ = try? conn.query("RELEASE SAVEPOINT rlskit_probe")
        }
        var values: [String] = []
        for (name, type) in zip(c.argNames, c.argTypes) {
            values.append(try value(for: name, type: type, columns: c.columns, victim: victim, conn))
        }
        let before = try stats(conn)
        let args = c.argTypes.indices.map { "$\($0 + 1)::\(c.argTypes[$0])" }
        let call =
            "select count(*) filter (where to_jsonb(r)::text ~ $\(values.count + 1)) from \(SQL.qualified(c.schema, c.name))(\(args.joined(separator: ", "))) r"
        let pattern = others.isEmpty ? "^$x" : "(" + others.joined(separator: "|") + ")"
        try conn.query("SAVEPOINT rlskit_call")
        var othersRows = 0
        var refused: String?
        var after = before
        do {
            try conn.query(actor.impersonation())
            othersRows = Int(try conn.query(call, values + [pattern]).rows.first?.decode(0) as Int64? ?? 0)
            try conn.query("select set_config('role', 'none', true), set_config('request.jwt.claims', '', true)")
            after = try stats(conn)
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            refused = e.message
            try conn.query("ROLLBACK TO SAVEPOINT rlskit_call")
        }
        var writes: [String] = []
        for (table, counts) in after.sorted(by: { $0.key < $1.key }) where refused == nil {
            let b = before[table] ?? (0, 0, 0)
            let d = [(counts.0 - b.0, "inserted"), (counts.1 - b.1, "updated"), (counts.2 - b.2, "deleted")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            if !d.isEmpty { writes.append("\(table): " + d.joined(separator: ", ")) }
        }
        return Outcome(function: function, caller: label, writes: writes, othersRows: othersRows, refused: refused)
    }

    /// A value for one argument: a row's value of the column it is named after, else another
    /// user's id for a uuid, else a plain constant.
    static func value(
        for name: String, type: String, columns: [Column],
        victim: String?, _ conn: PostgresConnection
    ) throws -> String {
        var stem = name.lowercased()
        for prefix in ["p_", "in_", "_", "target_"] where stem.hasPrefix(prefix) { stem.removeFirst(prefix.count) }
        let entity = stem.hasSuffix("_id") ? String(stem.dropLast(3)) : stem
        let matches =
            columns.filter { $0.column == stem && $0.type == type }
            + columns.filter {
                ($0.table == entity || $0.table == entity + "s") && $0.column == "id" && $0.type == type
            }
        // The victim's row first: the call acts on what another user owns.
        for m in matches {
            if let v: String = try conn.query(
                "select t.\(SQL.ident(m.column))::text from \(SQL.qualified(m.schema, m.table)) t where t.\(SQL.ident(m.column)) is not null order by (to_jsonb(t)::text ~ $1) desc limit 1",
                [victim ?? "^$x"]
            ).rows.first?.decode(0) {
                return v
            }
        }
        switch type {
        case "uuid": return victim ?? "00000000-0000-0000-0000-000000000001"
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
