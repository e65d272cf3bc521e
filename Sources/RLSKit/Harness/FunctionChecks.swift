import Postgres

/// The function probe inside a table's matrix unit: with A's and B's rows seeded, every
/// SECURITY DEFINER function the API roles may call is called as anon, as A and as B with
/// arguments taken from A's row (A's id for a uuid nothing else fills).
struct FunctionProbeRequest: Sendable {
    var exposedSchemas: [String]
    var a: HarnessActor, b: HarnessActor
    var intents: [FunctionIntent]
    /// The access file, for outcomes of functions it does not declare.
    var location: SourceLocation

    static let suite = "functions"

    func run(_ conn: PostgresConnection) throws -> [TestOutcome] {
        var out: [TestOutcome] = []
        let declared = try FunctionProbe.candidates(conn, exposedSchemas: exposedSchemas)
        for c in declared {
            let intent = intents.first { $0.matches(schema: c.schema, name: c.name, argTypes: c.argTypes) }
            let who = intent?.callableBy ?? .owner
            // (actor, label, whose rows it must not get, standing for writes)
            var calls: [(HarnessActor, String, [String], Who.Standing)] = []
            if c.anon { calls.append((.anon, "anon", [a.uid, b.uid], Who.Standing())) }
            if c.authenticated {
                calls.append((a, "A", [b.uid], Who.Standing(signedIn: true, isOwner: true, memberRole: "")))
                calls.append((b, "B", [a.uid], Who.Standing(signedIn: true)))
            }
            for (actor, label, others, standing) in calls {
                let o = try FunctionProbe.probe(c, as: actor, label: label, others: others, victim: a.uid, conn)
                out.append(
                    judge(
                        o, who: who, declared: intent, writer: standing,
                        reader: Who.Standing(signedIn: actor.kind == .user)))
            }
        }
        return out
    }

    func judge(
        _ o: FunctionProbe.Outcome, who: Who, declared: FunctionIntent?, writer: Who.Standing, reader: Who.Standing
    ) -> TestOutcome {
        var wrong: [String] = []
        if !o.writes.isEmpty, !who.allows(writer) { wrong.append("wrote " + o.writes.joined(separator: ", ")) }
        if o.othersRows > 0, !who.allows(reader) {
            wrong.append("returned \(o.othersRows) row\(o.othersRows == 1 ? "" : "s") of another user")
        }
        var outcome = TestOutcome(
            suite: Self.suite, name: "\(o.function) called as \(o.caller)", status: wrong.isEmpty ? .passed : .failed,
            location: declared?.location ?? location, actor: o.caller)
        outcome.operation = "call"
        if !wrong.isEmpty {
            let intent =
                declared.map { "callable-by \($0.callableBy)" }
                ?? "undeclared: only the owner of the rows it is given; declare 'function \(o.function) callable-by WHO' if that is meant"
            outcome.message =
                "\(Self.suite) · call \(o.function) · as \(o.caller), with arguments from A's row: \(wrong.joined(separator: "; ")) (\(intent))"
        }
        return outcome
    }
}

extension Planner {
    /// Each declared function exists, and there is a table whose seeded rows feed the probe.
    static func checkFunctions(_ file: AccessFile, conn: PostgresConnection) throws {
        for f in file.functions {
            let found =
                try conn.query(
                    """
                    select exists (select 1 from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
                                   where n.nspname = $1 and p.proname = $2
                                     and ($3::text is null or pg_catalog.oidvectortypes(p.proargtypes) = $3))
                    """, [f.schema, f.name, f.argTypes?.joined(separator: ", ")]
                ).rows.first?.decode(0) as Bool? ?? false
            guard found else {
                throw InputError(
                    f.location,
                    "function \(f.display) does not exist in the database: fix the name or argument types, or apply the migrations first"
                )
            }
        }
        if let f = file.functions.first,
            !file.tables.contains(where: { !$0.owner.isEmpty && $0.group.isEmpty })
        {
            throw InputError(
                f.location,
                "function \(f.display): the probe calls functions with the rows of a table that has an owner and no group: declare one with 'owner COLUMN'"
            )
        }
    }
}
