import Postgres

/// The function probe inside a matrix unit, in its seeded state: every SECURITY DEFINER
/// function the API roles may call (of those the planner gave this unit) is called by each
/// caller with arguments taken from the rows of someone it does not own (A's row in an
/// own-row table, G2's rows in a group table).
struct FunctionProbeRequest: Sendable {
    struct Caller: Sendable {
        var actor: HarnessActor
        var label: String
        /// Ids (users or group keys) whose rows it must not get.
        var others: [String]
        /// Its standing on the rows the arguments come from, and on rows of `others`.
        var writer: Who.Standing
        var reader: Who.Standing
        /// Rows it must not change; nil: every write counts.
        var watch: [FunctionProbe.Watch]?
    }

    var exposedSchemas: [String]
    var callers: [Caller]
    var arguments: FunctionProbe.Arguments
    /// Whose rows the arguments come from: "A's row", "G2's rows".
    var source: String
    /// Who may call a function no line declares, and how the message says it.
    var undeclared: Who = .owner
    var undeclaredText = "only the owner of the rows it is given"
    /// The functions this unit calls (`schema.name(types)`); nil: all.
    var only: Set<String>?
    var intents: [FunctionIntent]

    static let suite = "functions"

    /// A's and B's calls in an own-row table's unit, and anon's.
    static func ownRows(
        exposedSchemas: [String], a: HarnessActor, b: HarnessActor, roleActors: [MatrixActor],
        intents: [FunctionIntent]
    ) -> FunctionProbeRequest {
        var callers = [
            Caller(
                actor: .anon, label: "anon", others: [a.uid, b.uid, a.email, b.email], writer: Who.Standing(),
                reader: Who.Standing()),
            Caller(
                actor: a, label: "A", others: [b.uid, b.email],
                writer: Who.Standing(signedIn: true, isOwner: true, memberRole: ""),
                reader: Who.Standing(signedIn: true)),
            Caller(
                actor: b, label: "B", others: [a.uid, a.email], writer: Who.Standing(signedIn: true),
                reader: Who.Standing(signedIn: true)),
        ]
        callers += roleCallers(roleActors, intents, others: [a.uid, b.uid])
        return FunctionProbeRequest(
            exposedSchemas: exposedSchemas, callers: callers, arguments: .init(prefer: a.uid, user: a.uid),
            source: "A's row", intents: intents)
    }

    /// A signed-in user and anon in the unit of a table no user owns, with its seeded row.
    static func catalogRow(
        exposedSchemas: [String], table: String, user: HarnessActor, roleActors: [MatrixActor],
        intents: [FunctionIntent]
    ) -> FunctionProbeRequest {
        let signedIn = Who.Standing(signedIn: true)
        var callers = [
            Caller(actor: .anon, label: "anon", others: [], writer: Who.Standing(), reader: Who.Standing()),
            Caller(actor: user, label: user.name, others: [], writer: signedIn, reader: signedIn),
        ]
        callers += roleCallers(roleActors, intents, others: [])
        var request = FunctionProbeRequest(
            exposedSchemas: exposedSchemas, callers: callers, arguments: .init(),
            source: "the seeded row of \(table)", intents: intents)
        request.undeclared = .nobody
        request.undeclaredText = "no caller changes a table no user owns"
        return request
    }

    /// Holders and forgers of the roles a `callable-by` line names.
    static func roleCallers(_ actors: [MatrixActor], _ intents: [FunctionIntent], others: [String]) -> [Caller] {
        let named = Set(intents.flatMap(\.callableBy.roleNames))
        return actors.filter { a in
            named.contains { a.roles.contains($0) || a.actor.name == "forged \($0)" }
        }.map { x in
            let s = Who.Standing(signedIn: true, roles: x.roles)
            return Caller(actor: x.actor, label: x.actor.name, others: others, writer: s, reader: s)
        }
    }

    /// `skipUntested`: a declared function the probe cannot call is skipped, not failed.
    /// `restore` sets the unit up again on a new session, after a call was cut off by ending its own.
    func run(
        _ conn: PostgresConnection, skipUntested: Bool = false, restore: () throws -> Void = {}
    ) throws -> [TestOutcome] {
        var out: [TestOutcome] = []
        var lost: String?
        let found = try FunctionProbe.candidates(conn, exposedSchemas: exposedSchemas)
        for c in found where only?.contains(AuditNames.function(c.schema, c.signature)) ?? true {
            let intent = intents.first { $0.matches(schema: c.schema, name: c.name, argTypes: c.argTypes) }
            let who = intent?.callableBy ?? undeclared
            let function = AuditNames.function(c.schema, c.signature)
            if let why = FunctionProbe.unfillable(c) {
                out.append(notCovered(function, why, declared: intent, skip: skipUntested))
                continue
            }
            for x in callers where x.actor.kind == .anon ? c.anon : c.authenticated {
                if let lost {
                    out.append(notCovered(function, lost, declared: intent, skip: skipUntested, caller: x.label))
                    continue
                }
                let o = try FunctionProbe.probe(
                    c, as: x.actor, label: x.label, others: x.others, arguments: arguments, watch: x.watch, conn)
                if !conn.isAlive {
                    try conn.reconnect()
                    do { try restore() } catch {
                        lost = "the unit could not be set up again after a call was cut off (\(error))"
                    }
                }
                if let why = o.unfilled {
                    out.append(notCovered(function, why, declared: intent, skip: skipUntested, caller: x.label))
                } else {
                    out.append(judge(o, who: who, declared: intent, caller: x))
                }
            }
        }
        return out
    }

    /// A function the probe could not call: a failure when declared (unless skipped), a skip
    /// when not, so that it is never silently absent.
    func notCovered(
        _ function: String, _ why: String, declared: FunctionIntent?, skip: Bool, caller: String? = nil
    ) -> TestOutcome {
        let failing = declared != nil && !skip
        var o = TestOutcome(
            suite: Self.suite, name: caller.map { "\(function) called as \($0)" } ?? "\(function) not covered",
            status: failing ? .error : .skipped,
            message: "not covered: \(function)\(caller.map { " as \($0)" } ?? ""): \(why)"
                + (failing ? " (or --allow-untested to skip it)" : declared == nil ? " (not declared)" : ""),
            location: declared?.location, actor: caller)
        o.operation = "call"
        return o
    }

    func judge(_ o: FunctionProbe.Outcome, who: Who, declared: FunctionIntent?, caller: Caller) -> TestOutcome {
        var wrong: [String] = []
        var expected: [String] = []
        if !o.writes.isEmpty, !who.allows(caller.writer) {
            expected.append("no write")
            wrong.append("wrote " + o.writes.joined(separator: ", "))
        }
        if o.othersRows > 0, !who.allows(caller.reader) {
            expected.append("no row of \(others)")
            wrong.append("returned \(o.othersRows) row\(o.othersRows == 1 ? "" : "s") of \(others)")
        }
        if !o.privileged.isEmpty, !who.allows(caller.writer) {
            wrong.append("made the server send " + o.privileged.joined(separator: ", "))
        }
        // A declared role's holder is who the function is for: its call must go through.
        if let refused = o.refused, let d = declared,
            !d.callableBy.roleNames.isEmpty || !d.callableBy.memberRoles.isEmpty,
            who.allows(caller.writer)
        {
            expected.append("the call goes through")
            wrong.append("refused (\(refused))")
        }
        var outcome = TestOutcome(
            suite: Self.suite, name: "\(o.function) called as \(o.caller)", status: wrong.isEmpty ? .passed : .failed,
            location: declared?.location, actor: o.caller)
        outcome.operation = "call"
        // For the report's split: a refused holder is locked out; a write or read it may not do leaks.
        if !wrong.isEmpty { outcome.intendedAllowed = expected == ["the call goes through"] }
        if !wrong.isEmpty {
            let intent =
                declared.map { "callable-by \($0.callableBy)" }
                ?? "not declared, so callable by \(undeclared): \(undeclaredText); declare 'function \(o.function) callable-by WHO' if that is meant"
            outcome.expected = expected.joined(separator: " and ") + " (\(intent))"
            outcome.got = wrong.joined(separator: "; ")
            outcome.message =
                "\(Self.suite) · call \(o.function) · as \(o.caller), with arguments from \(source): "
                + UnitRunner.expectedGot(outcome.expected!, outcome.got!)
        }
        if !o.requests.isEmpty {
            outcome.message =
                (outcome.message.map { $0 + "; " } ?? "") + "requested " + o.requests.joined(separator: ", ")
                + " (recorded, not sent)"
        }
        return outcome
    }

    var others: String { undeclared == .owner ? "another user" : "another group" }
}

extension Planner {
    /// A unit that can call functions: its seeded tables and the request it would run.
    struct ProbeSite {
        var unit: Int
        /// Own-row tables first, then group tables, then tables no user owns.
        var rank: Int
        var tables: [TableInfo]
        var groupNames: Set<String>
        var request: FunctionProbeRequest
    }

    /// Each function is called in the unit whose seeded rows its arguments name best (a group
    /// argument counts twice), then whose table its body names; when none does, in the first
    /// own-row table's unit, else the first group table's, else the first other table's.
    static func assignFunctions(
        _ sites: [ProbeSite], exposedSchemas: [String], to plan: inout HarnessPlan, conn: PostgresConnection
    ) throws {
        guard !sites.isEmpty else { return }
        let ordered = sites.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
            .map(\.element)
        var given = [Set<String>](repeating: [], count: ordered.count)
        for c in try FunctionProbe.candidates(conn, exposedSchemas: exposedSchemas) {
            var best = 0
            var top = -1
            for (i, site) in ordered.enumerated() {
                var score = c.argNames.reduce(0) { sum, name in
                    let stem = FunctionProbe.argumentStem(name)
                    let entity = stem.hasSuffix("_id") ? String(stem.dropLast(3)) : stem
                    let group = site.groupNames.contains(stem) ? 4 : 0
                    let named = site.tables.contains { t in
                        t.column(stem) != nil || (t.name == entity || t.name == entity + "s")
                    }
                    return sum + group + (named ? 2 : 0)
                }
                // Between equals, the unit of the table the body names.
                if let own = site.tables.first, c.body.lowercased().contains(own.name.lowercased()) { score += 1 }
                if score > top { (best, top) = (i, score) }
            }
            given[best].insert(AuditNames.function(c.schema, c.signature))
        }
        for (i, site) in ordered.enumerated() where !given[i].isEmpty {
            var request = site.request
            request.only = given[i]
            plan.units[site.unit].probe = request
        }
    }

    /// Each declared function exists, and there is a table whose seeded rows feed the probe.
    /// Returns the declarations with their argument types as the server prints them, so
    /// `public.org_role` and `org_role` name the same function.
    static func checkFunctions(_ file: AccessFile, conn: PostgresConnection) throws -> [FunctionIntent] {
        var out: [FunctionIntent] = []
        for var f in file.functions {
            var found = false
            if let types = f.argTypes {
                let signature = SQL.qualified(f.schema, f.name) + "(" + types.joined(separator: ", ") + ")"
                // An unknown type is an error on older servers, NULL on newer: both mean "not found".
                let printed = try? conn.query(
                    """
                    select array(select pg_catalog.format_type(t, null) from unnest(p.proargtypes) with ordinality x(t, i) order by i)
                    from pg_catalog.pg_proc p where p.oid = pg_catalog.to_regprocedure($1)
                    """, [signature]
                ).rows.first.map { try $0.decode(0) as [String] }
                if let printed {
                    f.argTypes = printed
                    found = true
                }
            } else {
                found =
                    try conn.query(
                        """
                        select exists (select 1 from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
                                       where n.nspname = $1 and p.proname = $2)
                        """, [f.schema, f.name]
                    ).rows.first?.decode(0) as Bool? ?? false
            }
            guard found else {
                throw InputError(
                    f.location,
                    "function \(f.display) does not exist in the database: fix the name or argument types, or apply the migrations first"
                )
            }
            out.append(f)
        }
        if let f = file.functions.first, file.tables.isEmpty {
            throw InputError(
                f.location,
                "function \(f.display): the probe calls functions with the seeded rows of a declared table: add a 'table schema.name' block"
            )
        }
        return out
    }
}
