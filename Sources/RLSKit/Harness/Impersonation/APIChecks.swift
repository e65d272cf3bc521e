import Postgres

/// What the Data API's way of running a request adds to judging a check.
enum APIChecks {
    /// Why an error happened the way PostgREST would have hit it, or "".
    static func hint(_ observed: Observed) -> String {
        if case .error("25006", _) = observed {
            return
                " — reads run READ ONLY, as PostgREST runs GET requests: a policy or a function it calls writes; make it read only (or move the write out of the read)"
        }
        return ""
    }

    /// A deliberate refusal: a PL/pgSQL RAISE (any SQLSTATE), as a trigger or function refuses a
    /// change. Known by where the server raised it, not by SQLSTATE: P0001 is RAISE's default, but
    /// `using errcode = 'check_violation'` is a RAISE too, while a CHECK constraint's 23514 or a
    /// failed ASSERT (P0004) is not a refusal and stays an error.
    static func isRefusal(_ e: PostgresError) -> Bool {
        if let f = e.sourceFunction { return f == "exec_stmt_raise" }
        return e.sqlState == "P0001"
    }

    /// A read-back check (`… returning *`) is a finding of its own only when its plain write
    /// passed; otherwise the plain write's failure says it all and the read-back is left out.
    static func settle(_ outcomes: [TestOutcome], _ checks: [PolicyCheck]) -> [TestOutcome] {
        var passed: Set<String> = []
        for (o, c) in zip(outcomes, checks) where c.readBackOf == nil && !o.isFailure { passed.insert(o.name) }
        var out: [TestOutcome] = []
        for (var o, c) in zip(outcomes, checks) {
            if let plain = c.readBackOf, o.isFailure {
                guard passed.contains(plain) else { continue }
                o.expected = "the new row returned"
                o.message =
                    "\(c.suite) · \(c.operation) · as \(c.actor): the insert succeeds but the new row cannot be read back "
                    + "(insert(...).select() fails): "
                    + UnitRunner.expectedGot(o.expected!, o.got ?? "?")
                    + " — a SELECT policy must let \(c.actor) read the row it wrote"
                o.status = .failed
            }
            out.append(o)
        }
        return out
    }
}
