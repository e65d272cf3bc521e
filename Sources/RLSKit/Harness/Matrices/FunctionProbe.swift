import Postgres

/// Calls each SECURITY DEFINER function of the exposed schemas that anon or authenticated may
/// execute, as anon and as a signed-in stranger who owns nothing, with arguments taken from
/// the database's rows (other users' ids), each call in a transaction that is rolled back, and
/// says what it did: rows it wrote (pg_stat_xact_user_tables) and rows it returned that name
/// another user.
enum FunctionProbe {
    struct Outcome: Sendable, Equatable {
        /// `schema.name(argument types)`.
        var function: String
        /// "anon" or "a stranger".
        var caller: String
        /// "public.members: 1 updated", … (empty when it wrote nothing).
        var writes: [String]
        /// Rows returned that contain another user's id.
        var othersRows: Int
        /// The error that refused the call, when it raised.
        var refused: String?
        /// Requests the stand-ins recorded (`POST https://…`), never sent.
        var requests: [String] = []
        /// Those of them carrying elevated credentials, as "DELETE https://… with a service_role token".
        var privileged: [String] = []
        /// Why the call gave no verdict: an argument the probe chose was not a value the function
        /// takes, or it did not end in time (`cutOff`).
        var unfilled: String?
        /// What the call changed in the catalog (row security, grants, policies, roles), as
        /// "row level security off on public.notes"; a rollback undoes it, a real call would not.
        var catalogChanges: [String] = []
        /// Effects no rollback undoes (a session advisory lock), found after the call.
        var lasting: [String] = []
        /// A write or another user's rows, done by a caller that should get neither.
        var isFinding: Bool {
            refused == nil && unfilled == nil
                && (!writes.isEmpty || othersRows > 0 || !catalogChanges.isEmpty || !privileged.isEmpty)
        }

        var sentence: String {
            if let unfilled { return "\(function) as \(caller): not covered: \(unfilled)" }
            if let refused { return "\(function) as \(caller): refused (\(refused))" }
            var parts: [String] = []
            if !writes.isEmpty { parts.append("wrote " + writes.joined(separator: ", ")) }
            if !catalogChanges.isEmpty {
                parts.append("changed the catalog: " + catalogChanges.joined(separator: "; "))
            }
            if !lasting.isEmpty { parts.append(lasting.joined(separator: "; ")) }
            if othersRows > 0 { parts.append("returned \(othersRows) row\(othersRows == 1 ? "" : "s") of other users") }
            if !requests.isEmpty {
                parts.append("requested " + requests.joined(separator: ", ") + " (recorded, not sent)")
            }
            return "\(function) as \(caller): "
                + (parts.isEmpty ? "did nothing visible" : parts.joined(separator: "; "))
        }
    }

    /// Bodies that reach outside the database are called only when the stand-ins record the
    /// requests (rlskit's pg_net and http, never sending them); dblink and webhooks never.
    static let outside = [
        "dblink", "http_get", "http_post", "http_put", "http_delete", "http_patch", "http_head", "http(",
        "supabase_functions.http_request",
    ]
    /// Never called either: what a rollback cannot undo. (A role switch cannot happen: the
    /// probe calls SECURITY DEFINER functions only, where PostgreSQL refuses it.)
    static let neverCalled = [
        "dblink", "supabase_functions.http_request", "to program", "from program", "lo_export", "lo_import",
        "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "alter system",
    ]
    /// The stand-ins' request logs: a recorded request is reported, not counted as a write.
    static let recorders = ["net.http_request_queue", "net._http_response", "rlskit_http.requests"]

    struct Column { var schema, table, column, type: String }

    struct Candidate {
        var schema, name, signature, body: String
        var argNames, argTypes: [String]
        /// Per argument: the type under a domain, and an enum's first label ("" if none).
        var argBases: [String] = [], argLabels: [String] = []
        /// How many trailing arguments have defaults.
        var defaults = 0
        var anon, authenticated: Bool
        var columns: [Column]

        var hasTextArgument: Bool {
            argTypes.indices.contains { i in
                let base = i < argBases.count ? argBases[i] : argTypes[i]
                return (base == "text" || base == "character varying") && i < argTypes.count - defaults
            }
        }
    }

    static func run(_ conn: PostgresConnection, exposedSchemas: [String]) throws -> [Outcome] {
        // Every form a row may hold another user in: the id (any case, with or without hyphens),
        // the email, the phone.
        let others: [String] = try conn.query(
            """
            select v from (select id::text as v, 0 as k, created_at, id from auth.users
                           union all select email::text, 1, created_at, id from auth.users where coalesce(email, '') <> ''
                           union all select phone::text, 2, created_at, id from auth.users where coalesce(phone, '') <> '') s
             order by k, created_at nulls last, id
            """
        ).rows.map { try $0.decode(0) }
        let callers = [(HarnessActor.anon, "anon", others), (HarnessActor.user("stranger"), "a stranger", others)]
        var out: [Outcome] = []
        for c in try candidates(conn, exposedSchemas: exposedSchemas) where unfillable(c) == nil {
            for (actor, label, others) in callers where actor.kind == .anon ? c.anon : c.authenticated {
                _ = try conn.runScript(UnitRunner.begin(conn))
                var o = try probe(c, as: actor, label: label, others: others, conn)
                _ = try? conn.query("ROLLBACK")
                if conn.isAlive { o.lasting = (try? releaseLasting(conn)) ?? [] }
                out.append(o)
                // A call cut off by ending its session: the others go on in a new one.
                if !conn.isAlive { try conn.reconnect() }
            }
        }
        return out
    }

    /// How long a call may run, and how long it has to end after the cancel.
    static let deadline = 5.0
    static let grace = 1.0
    static let cutOff = "did not end within 5 s (cut off)"

    /// The functions it may call: callable by an API role, arguments it can fill, nothing
    /// reaching outside the database.
    static func candidates(_ conn: PostgresConnection, exposedSchemas: [String]) throws -> [Candidate] {
        // Bound as text[]: the one array quoter escapes `\`, `"`, `,` and braces in names.
        let schemas = exposedSchemas
        let columns = try conn.query(Catalog.schemaColumnsSQL, [schemas]).rows.map { r in
            Column(
                schema: try r.decode("schema"), table: try r.decode("table_name"), column: try r.decode("column_name"),
                type: try r.decode("type"))
        }
        // Network functions that are not the recording stand-ins: bodies reaching them are never called.
        let real = try Catalog.networkFunctions(conn)
        return try conn.query(candidatesSQL, [schemas]).rows.map { r in
            Candidate(
                schema: try r.decode("schema"), name: try r.decode("fname"), signature: try r.decode("signature"),
                body: try r.decode("body"), argNames: try r.decode("argnames"), argTypes: try r.decode("argtypes"),
                argBases: try r.decode("argbases"), argLabels: try r.decode("arglabels"),
                defaults: try r.decode("defaults"), anon: try r.decode("anon"),
                authenticated: try r.decode("authenticated"), columns: columns)
        }.filter { c in
            let lower = c.body.lowercased()
            let reaches = outside.contains(where: { lower.contains($0) })
            return !(neverCalled.contains(where: { lower.contains($0) }) || (reaches && !real.isEmpty))
        }
    }

    /// Where a call's arguments come from: the rows of `prefer` (a user's id or a group's key)
    /// first; `user` fills user ids, `group` the arguments naming a group.
    struct Arguments: Sendable {
        var prefer: String?
        var user: String?
        var group: GroupArgument?
        /// Text arguments take values no row holds (`rlskit probe 1`), not a column's: a second
        /// try for a function that refused a name it already has ("name already exists").
        var fresh = false
    }

    /// A group's key and the argument names that mean it (`team_id`, `org_id`, …).
    struct GroupArgument: Sendable {
        var key: String
        var type: String
        var names: Set<String>
    }

    /// Rows a caller must not change: `sql` returns one fingerprint of them.
    struct Watch: Sendable {
        var table: String
        var sql: String
    }

    /// One call as `actor` inside the caller's open transaction, undone by a savepoint.
    /// `others` are the ids whose rows the caller must not get; with `watch`, only changes to
    /// those rows count as writes.
    static func probe(
        _ c: Candidate, as actor: HarnessActor, label: String, others: [String], victim: String? = nil,
        arguments: Arguments? = nil, watch: [Watch]? = nil, _ conn: PostgresConnection
    ) throws -> Outcome {
        var args = arguments ?? Arguments(prefer: victim ?? others.first, user: victim ?? others.first)
        let o = try probeOnce(c, as: actor, label: label, others: others, args: args, watch: watch, conn)
        // Refused with a name a row already holds ("name already exists"): once more with new text.
        guard o.refused != nil, o.unfilled == nil, !args.fresh, c.hasTextArgument, conn.isAlive else { return o }
        args.fresh = true
        let again = try probeOnce(c, as: actor, label: label, others: others, args: args, watch: watch, conn)
        return again.refused == nil && again.unfilled == nil ? again : o
    }

    static func probeOnce(
        _ c: Candidate, as actor: HarnessActor, label: String, others: [String], args: Arguments,
        watch: [Watch]?, _ conn: PostgresConnection
    ) throws -> Outcome {
        let function = AuditNames.function(c.schema, c.signature)
        try conn.query("SAVEPOINT rlskit_probe")
        // `CallDeadline` cuts a call off; these only stop one whose caller died: a sleeper at the
        // timeout, a loop catching that when the server sees the connection gone. Undone with the savepoint.
        try conn.query(
            "select set_config('statement_timeout', '30s', true)"
                + (conn.serverVersion >= 140000 ? ", set_config('client_connection_check_interval', '1s', true)" : ""))
        defer {
            _ = try? conn.query("ROLLBACK TO SAVEPOINT rlskit_probe")
            _ = try? conn.query("RELEASE SAVEPOINT rlskit_probe")
        }
        let filled = try c.argTypes.indices.map { try value(c, $0, args, conn) }
        let (params, values) = argumentList(c, filled)
        let before = try stats(conn)
        let prints = try watch.map { try fingerprints($0, conn) }
        let call =
            "select count(*) filter (where to_jsonb(r)::text ~* $\(values.count + 1)) from \(SQL.qualified(c.schema, c.name))(\(params)) r"
        let pattern = leakPattern(others)
        let catalogBefore = try catalogDigest(conn)
        try conn.query("SAVEPOINT rlskit_call")
        var othersRows = 0
        var refused: String?
        var after = before
        var changed: Set<String>?
        var catalogChanges: [String] = []
        do {
            try conn.query(actor.impersonation())
            let (result, stage) = CallDeadline.run(conn, seconds: deadline, grace: grace) {
                try conn.query(call, values + [pattern])
            }
            // Past the deadline the call has no verdict, even one that returned after the cancel.
            if stage != .inTime {
                var o = Outcome(function: function, caller: label, writes: [], othersRows: 0, refused: nil)
                o.unfilled = cutOff
                return o
            }
            othersRows = Int(try result.get().rows.first?.decode(0) as Int64? ?? 0)
            try conn.query("select set_config('role', null, true), set_config('request.jwt.claims', '', true)")
            after = try stats(conn)
            if let watch, let prints {
                let now = try fingerprints(watch, conn)
                changed = Set(watch.indices.filter { now[$0] != prints[$0] }.map { watch[$0].table })
            }
            // Only when the digest moved: the state after, then (the call undone) the state before.
            if try catalogDigest(conn) != catalogBefore {
                let afterState = try catalogState(conn)
                try conn.query("ROLLBACK TO SAVEPOINT rlskit_call")
                catalogChanges = afterState.subtracting(try catalogState(conn)).sorted()
            }
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            refused = e.message
            try conn.query("ROLLBACK TO SAVEPOINT rlskit_call")
            // A value of the probe's choosing the function could not cast: no verdict.
            if e.sqlState?.hasPrefix("22") == true,
                let i = filled.indices.first(where: { filled[$0].map { e.message.contains("\"\($0)\"") } ?? false })
            {
                var o = Outcome(function: function, caller: label, writes: [], othersRows: 0, refused: nil)
                let name = i < c.argNames.count && !c.argNames[i].isEmpty ? c.argNames[i] : "$\(i + 1)"
                o.unfilled = "argument \(name) could not be filled (\(e.message))"
                return o
            }
        }
        var writes: [String] = []
        var recorded = 0
        for (table, counts) in after.sorted(by: { $0.key < $1.key }) where refused == nil {
            let b = before[table] ?? (0, 0, 0)
            if recorders.contains(table) {
                if table != "net._http_response" { recorded += Int(counts.0 - b.0) }
                continue
            }
            let d = [(counts.0 - b.0, "inserted"), (counts.1 - b.1, "updated"), (counts.2 - b.2, "deleted")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            if !d.isEmpty, changed?.contains(table) ?? true { writes.append("\(table): " + d.joined(separator: ", ")) }
        }
        var o = Outcome(function: function, caller: label, writes: writes, othersRows: othersRows, refused: refused)
        o.catalogChanges = catalogChanges
        if recorded > 0 {
            let sent = try self.recorded(recorded, conn)
            o.requests = sent.map(\.request)
            o.privileged = sent.compactMap { r in r.credential.map { "\(r.request) with \($0)" } }
        }
        return o
    }

    /// A case-insensitive pattern for any of `values` (regex characters escaped), uuids also
    /// without their hyphens; one that matches nothing for none.
    static func leakPattern(_ values: [String]) -> String {
        var forms: [String] = []
        for v in values where !v.isEmpty {
            forms.append(v)
            if v.count == 36, v.filter({ $0 == "-" }).count == 4 {
                forms.append(v.replacingOccurrences(of: "-", with: ""))
            }
        }
        guard !forms.isEmpty else { return "^$x" }
        let special = Set("\\.^$|?*+()[]{}")
        return "("
            + forms.map { f in String(f.flatMap { special.contains($0) ? ["\\", $0] : [$0] }) }.joined(separator: "|")
            + ")"
    }

    /// What a function may change that no table count shows: row security, grants, policies,
    /// roles and memberships, outside the system's schemas.
    static let catalogStateSQL = """
        select 'row level security ' || case when c.relrowsecurity then 'on' else 'off' end
               || case when c.relforcerowsecurity then ' (forced)' else '' end || ' on ' || c.oid::regclass::text
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where c.relkind in ('r', 'p') and n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
        union all
        select 'grants on ' || c.oid::regclass::text || ': ' || coalesce(c.relacl::text, 'the defaults')
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where c.relkind in ('r', 'p', 'v', 'm', 'f') and n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
        union all
        select 'policy ' || p.polname || ' on ' || p.polrelid::regclass::text || ' ('
               || pg_catalog.md5(p.polcmd::text || p.polpermissive::text || p.polroles::text
                                 || coalesce(pg_catalog.pg_get_expr(p.polqual, p.polrelid), '')
                                 || coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid), '')) || ')'
          from pg_catalog.pg_policy p
        union all
        select 'execute on ' || p.oid::regprocedure::text || ': ' || coalesce(p.proacl::text, 'the defaults')
          from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
         where n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
        union all
        select 'membership of ' || m.member::regrole::text || ' in ' || m.roleid::regrole::text
          from pg_catalog.pg_auth_members m
        union all
        select 'role ' || r.rolname || (case when r.rolsuper then ' superuser' else '' end)
               || (case when r.rolbypassrls then ' bypassrls' else '' end) || (case when r.rolcanlogin then ' login' else '' end)
          from pg_catalog.pg_roles r
        """

    static func catalogState(_ conn: PostgresConnection) throws -> Set<String> {
        Set(try conn.query(catalogStateSQL).rows.map { try $0.decode(0) as String })
    }

    static func catalogDigest(_ conn: PostgresConnection) throws -> String {
        try conn.query(
            "select pg_catalog.md5(coalesce(pg_catalog.string_agg(s, ',' order by s), '')) from (\(catalogStateSQL)) x(s)"
        )
        .rows[0].decode(0)
    }

    /// Session advisory locks the call left (a rollback keeps them): released, and said.
    static func releaseLasting(_ conn: PostgresConnection) throws -> [String] {
        let n: Int = try conn.query(
            "select count(*)::int from pg_catalog.pg_locks where locktype = 'advisory' and pid = pg_catalog.pg_backend_pid()"
        ).rows[0].decode(0)
        guard n > 0 else { return [] }
        _ = try conn.query("select pg_catalog.pg_advisory_unlock_all()")
        return [
            "took \(n) session advisory lock\(n == 1 ? "" : "s"), which no rollback undoes (rlskit released \(n == 1 ? "it" : "them"))"
        ]
    }

    /// Every watched table's fingerprint in one round trip (they are taken before and after each call).
    static func fingerprints(_ watch: [Watch], _ conn: PostgresConnection) throws -> [String] {
        guard !watch.isEmpty else { return [] }
        let row = try conn.query("select " + watch.map { "(\($0.sql))" }.joined(separator: ", ")).rows.first
        return try watch.indices.map { i in try row?.decode(i) ?? "" }
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
               array(select pg_catalog.format_type(coalesce(nullif(ty.typbasetype, 0), ty.oid), null)
                     from unnest(p.proargtypes) with ordinality x(t, i) join pg_catalog.pg_type ty on ty.oid = x.t
                     order by x.i) as argbases,
               array(select coalesce((select e.enumlabel from pg_catalog.pg_enum e
                                      where e.enumtypid = coalesce(nullif(ty.typbasetype, 0), ty.oid)
                                      order by e.enumsortorder limit 1), '')
                     from unnest(p.proargtypes) with ordinality x(t, i) join pg_catalog.pg_type ty on ty.oid = x.t
                     order by x.i) as arglabels,
               p.pronargdefaults as defaults,
               has_function_privilege('anon', p.oid, 'EXECUTE') and has_schema_privilege('anon', n.oid, 'USAGE') as anon,
               has_function_privilege('authenticated', p.oid, 'EXECUTE')
                 and has_schema_privilege('authenticated', n.oid, 'USAGE') as authenticated
        from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        where p.prosecdef and p.prokind = 'f' and n.nspname = any($1::text[])
          -- The platform's own functions (realtime.send) are its business, even in exposed schemas.
          and \(SchemaLists.userSchema("n"))
          and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
          and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
          and (has_function_privilege('anon', p.oid, 'EXECUTE') or has_function_privilege('authenticated', p.oid, 'EXECUTE'))
        order by 1, 3
        """
}
