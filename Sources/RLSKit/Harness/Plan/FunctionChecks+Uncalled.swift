import Postgres

extension Planner {
    /// Declared functions the probe never calls (a schema not exposed, a trigger, SECURITY
    /// INVOKER, no API grant, a body reaching outside): not covered, with why, so that a line
    /// nobody tested never passes. `callable-by nobody` without an API grant is what it says.
    static func uncalled(
        _ intents: [FunctionIntent], exposedSchemas: [String], skip: Bool, conn: PostgresConnection
    ) throws -> [TestOutcome] {
        guard !intents.isEmpty else { return [] }
        let called = try FunctionProbe.candidates(conn, exposedSchemas: exposedSchemas)
        var out: [TestOutcome] = []
        for f in intents
        where !called.contains(where: { f.matches(schema: $0.schema, name: $0.name, argTypes: $0.argTypes) }) {
            guard let why = try reason(f, exposedSchemas: exposedSchemas, conn) else { continue }
            var o: TestOutcome
            if why == noGrant && f.callableBy == .nobody {
                o = TestOutcome(
                    suite: FunctionProbeRequest.suite, name: "\(f.display) cannot be called by anon or authenticated",
                    status: .passed, location: f.location)
            } else {
                o = TestOutcome(
                    suite: FunctionProbeRequest.suite, name: "\(f.display) not covered",
                    status: skip ? .skipped : .error,
                    message: "not covered: \(f.display): \(why)" + (skip ? "" : " (or --allow-untested to skip it)"),
                    location: f.location)
            }
            o.operation = "call"
            out.append(o)
        }
        return out
    }

    static let noGrant = "neither anon nor authenticated may execute it"

    /// Why the probe leaves `f` alone; nil when no such function exists (checked before).
    static func reason(
        _ f: FunctionIntent, exposedSchemas: [String], _ conn: PostgresConnection
    ) throws -> String? {
        guard exposedSchemas.contains(f.schema) else {
            return "schema \(f.schema) is not exposed, so the API cannot call it"
        }
        let rows = try conn.query(
            """
            select p.prorettype in ('trigger'::regtype, 'event_trigger'::regtype), p.prosecdef,
                   has_function_privilege('anon', p.oid, 'EXECUTE') or has_function_privilege('authenticated', p.oid, 'EXECUTE'),
                   p.prokind = 'f' and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
            from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
            where n.nspname = $1 and p.proname = $2
              and ($3::text is null or pg_catalog.oidvectortypes(p.proargtypes) = $3)
            order by p.oid limit 1
            """, [f.schema, f.name, f.argTypes?.joined(separator: ", ")]
        ).rows
        guard let r = rows.first else { return nil }
        if try r.decode(0) as Bool { return "it is a trigger function, which the API cannot call" }
        if !(try r.decode(1) as Bool) {
            return
                "it is SECURITY INVOKER: the probe calls SECURITY DEFINER functions only (an invoker runs under the caller's own policies, which the table checks test)"
        }
        if !(try r.decode(2) as Bool) { return noGrant }
        if !(try r.decode(3) as Bool) { return "it is a procedure, an aggregate or an extension's function" }
        return
            "its body reaches outside the database or past a rollback (dblink, a webhook, http/pg_net that are not rlskit's recording stand-ins, a server program or file, ending other sessions), so the probe never calls it"
    }
}
