import Foundation
import Postgres

/// Runs one unit on one connection: BEGIN, sign-up, seeding, the pipelined checks, ROLLBACK.
struct UnitRunner {
    let conn: PostgresConnection
    /// A unit that cannot run is skipped (the user allowed it) instead of failed.
    let skipUntested: Bool

    init(conn: PostgresConnection, storageConn: PostgresConnection? = nil, skipUntested: Bool) {
        self.conn = conn
        self.storageConn = storageConn
        self.skipUntested = skipUntested
    }

    /// Where bucket units run: the Storage API's login, when there is one.
    let storageConn: PostgresConnection?

    func run(_ unit: HarnessUnit) throws -> [TestOutcome] {
        if unit.storage, let storageConn, storageConn !== conn {
            return try UnitRunner(conn: storageConn, skipUntested: skipUntested).run(unit)
        }
        if let reason = unit.notCovered { return [notCovered(unit, reason)] }
        let start = Date()
        defer { _ = try? conn.query("ROLLBACK") }
        // One round trip for sign-up and seeding; only when that fails are they run apart, to
        // tell which of them failed.
        if !unit.setup.isEmpty {
            do {
                _ = try conn.runScript(begin + unit.signUp + unit.setup)
            } catch {
                if error.error.isConnectionFailure { throw error.error }
                _ = try? conn.query("ROLLBACK")
                return try runApart(unit, since: start)
            }
            return try runChecks(unit, since: start)
        }
        return try runApart(unit, since: start)
    }

    /// Sign-up, then seeding, each on its own, so that a failure names the step.
    func runApart(_ unit: HarnessUnit, since start: Date) throws -> [TestOutcome] {
        do {
            _ = try conn.runScript(begin + unit.signUp)
        } catch {
            if error.error.isConnectionFailure { throw error.error }
            return [signUpFailed(unit, error.error, sql: unit.signUp)]
        }
        if !unit.setup.isEmpty {
            do { _ = try conn.runScript(unit.setup) } catch {
                if error.error.isConnectionFailure { throw error.error }
                return [
                    notCovered(
                        unit,
                        "seeding rows for the test users failed: \(error.error.message) — declare 'seed <column> = <expression>' in the access file"
                    )
                ]
            }
        }
        return try runChecks(unit, since: start)
    }

    static let signUpName = "sign up the test users"

    /// Opens the unit's transaction with JIT off: policies nested through other tables' policies
    /// make plans whose estimated cost (on empty, never analysed tables) passes jit_above_cost,
    /// and compiling one takes seconds where running it takes milliseconds.
    var begin: String { Self.begin(conn) }

    static func begin(_ conn: PostgresConnection) -> String {
        "BEGIN;\n" + (conn.serverVersion >= 110000 ? "set local jit = off;\n" : "")
    }

    /// The unit's sign-up failed: the transaction is given up first, so that the triggers on
    /// auth.users can be read to name the one that failed.
    func signUpFailed(_ unit: HarnessUnit, _ e: PostgresError, sql: String) -> TestOutcome {
        _ = try? conn.query("ROLLBACK")
        let triggers = (try? SignUp.triggers(conn)) ?? []
        return TestOutcome(
            suite: unit.suite, name: Self.signUpName, status: .error,
            message: SignUp.failure(e, triggers: triggers), location: unit.location, sql: sql)
    }

    /// The pipelined checks, in the unit's open transaction (after late sign-ups and the hook).
    func runChecks(_ unit: HarnessUnit, since start: Date) throws -> [TestOutcome] {
        var unit = unit
        if !unit.lateSignUp.isEmpty {
            do { _ = try conn.runScript(unit.lateSignUp) } catch {
                if error.error.isConnectionFailure { throw error.error }
                return [signUpFailed(unit, error.error, sql: unit.lateSignUp)]
            }
        }
        try TokenRefresh.refresh(&unit, conn: conn)
        if let hook = unit.hook,
            let problem = try HookClaims.run(hook, unit, conn: conn, authAdmin: unit.hookAsAuthAdmin)
        {
            return [
                TestOutcome(
                    suite: unit.suite, name: "custom access-token hook", status: .error, message: problem,
                    location: unit.location)
            ]
        }
        let groups = unit.checks.map { $0.statements.map { PostgresStatement($0) } }
        let results: [[StatementOutcome]]
        do {
            results = try conn.pipeline(groups: groups, isolation: unit.isolation)
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            return [
                TestOutcome(
                    suite: unit.suite, name: "run the checks", status: .error,
                    message: conn.inTransaction ? e.message : Self.ended, location: unit.location)
            ]
        }
        // Whatever the step parser thought of the SQL, the checks must not end our transaction.
        if !conn.inTransaction {
            return [
                TestOutcome(
                    suite: unit.suite, name: "run the checks", status: .error, message: Self.ended,
                    location: unit.location)
            ]
        }
        let each = Date().timeIntervalSince(start) / Double(max(1, unit.checks.count))
        // The API role each actor acts as, for the HTML cell's policies.
        var roles = Dictionary(unit.users.map { ($0.label, $0.role) }, uniquingKeysWith: { a, _ in a })
        roles["anon"] = "anon"
        roles["service_role"] = "service_role"
        var outcomes = zip(unit.checks, results).map {
            var o = judge($0, $1, duration: each)
            if $0.operation != "rls" { o.role = o.role ?? roles[$0.actor] }
            return o
        }
        try blame(&outcomes, unit.checks)
        outcomes = APIChecks.settle(outcomes, unit.checks)
        if let probe = unit.probe {
            outcomes += try probe.run(conn, skipUntested: skipUntested) { try restore(unit) }
        }
        return outcomes
    }

    /// The unit's transaction as `run` began it, on a new session: sign-up, seeding, late sign-ups.
    func restore(_ unit: HarnessUnit) throws {
        do {
            _ = try conn.runScript(begin + unit.signUp + unit.setup)
            if !unit.lateSignUp.isEmpty { _ = try conn.runScript(unit.lateSignUp) }
        } catch { throw error.error }
    }

    static let ended =
        "a step ended rlskit's transaction (transaction control rlskit did not recognise), so what ran before it may have been committed: check the database and remove that statement"

    func notCovered(_ unit: HarnessUnit, _ reason: String) -> TestOutcome {
        TestOutcome(
            suite: unit.suite, name: "not covered", status: skipUntested ? .skipped : .error,
            message: "not covered: \(reason)" + (skipUntested ? "" : " (or --allow-untested to skip it)"),
            location: unit.location)
    }

    /// Every check message's one form: what was expected, then what happened, each labelled.
    static func expectedGot(_ expected: String, _ got: String) -> String {
        "expected: \(expected); got: \(got)"
    }

    func judge(_ check: PolicyCheck, _ results: [StatementOutcome], duration: Double) -> TestOutcome {
        var observed = Observed(results.last ?? .skipped)
        var failedSetup: String?
        for (i, r) in results.dropLast().enumerated() {
            if case .failure(let e) = r {
                failedSetup = check.statements[i]
                observed = Observed(.failure(e))
                break
            }
        }
        let missed = check.expectations.filter { !$0.accepts(observed) }
        var outcome = TestOutcome(
            suite: check.suite, name: check.name, status: .passed, location: check.location,
            sql: check.judgedSQL, actor: check.actor, duration: duration)
        outcome.operation = check.operation
        outcome.role = check.row?.role
        outcome.expected = check.expectations.map(\.description).joined(separator: ", ")
        outcome.got =
            (check.expectations.first { !$0.accepts(observed) } ?? check.expectations.first)?
            .describe(observed) ?? "\(observed)"
        outcome.intendedAllowed = check.expectations.first.flatMap(\.intendsAllowed)
        guard !missed.isEmpty || failedSetup != nil else { return outcome }
        let unexpectedError: Bool
        switch observed {
        case .error, .notRun:
            unexpectedError = !check.expectations.contains { if case .sqlState = $0 { true } else { false } }
        default: unexpectedError = false
        }
        outcome.status = unexpectedError || failedSetup != nil ? .error : .failed
        var message =
            "\(check.suite) · \(check.operation) · as \(check.actor): "
            + Self.expectedGot(missed.map(\.description).joined(separator: ", "), outcome.got ?? "")
        if let s = failedSetup {
            message =
                "\(check.suite) · \(check.operation) · as \(check.actor): preparing the check failed: \(observed)"
            outcome.sql = s
        }
        outcome.message = message + APIChecks.hint(observed)
        return outcome
    }
}
