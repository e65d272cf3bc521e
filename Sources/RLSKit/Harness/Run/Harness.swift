import Foundation
import Postgres
import Synchronization

public struct HarnessOptions: Sendable {
    /// Connections to spread the work over.
    public var jobs = 1
    /// Undeclared RLS tables in exposed schemas fail the run.
    public var strict = false
    /// Declared tables and buckets that cannot be tested (seeding failed, a column rlskit cannot
    /// fill) are skipped instead of failed. Off by default: CI must not pass on an untested table.
    public var allowUntested = false
    /// Run even where a deletion backend could make real network calls.
    public var allowSideEffects = false
    /// The schemas the Data API serves, as `Project` resolved them (the caller's, config.toml's
    /// and the access files' `expose` lines, else the database's); nil: each access file's
    /// `expose` lines, else `public`.
    public var exposedSchemas: [String]?
    /// The project's custom access-token hook: every signed-in actor's claims go through it.
    public var accessTokenHook: AccessTokenHook?
    /// `config.toml`'s `[api] extra_search_path`: what PostgREST puts after the request's schema
    /// in every request's search_path; nil means the platform's `public, extensions`.
    public var extraSearchPath: [String]?
    /// Where pgTAP files run when not on the target: a throwaway server's `postgres`, not a
    /// superuser, as `supabase test db` runs them on the platform.
    public var pgtapConnection: ConnectionString?
    /// A throwaway server's login as `authenticator` (`Sandbox.apiConnection`): the units run
    /// there, so `session_user` is what PostgREST's requests see. Nil on a given database, where
    /// rlskit has no such login: the units run as the connecting role.
    public var apiConnection: ConnectionString?
    /// The same for the Storage API, which logs in as `supabase_storage_admin`: bucket units.
    public var storageConnection: ConnectionString?
    /// Start no unit after one has failed (mutate: one failure kills the mutant).
    var stopAtFirstFailure = false
    public init() {}

    /// The search_path PostgREST sets for a request to `schema`: that schema, then the extras.
    public func requestSearchPath(schema: String) -> String {
        var names: [String] = []
        for n in [schema] + (extraSearchPath ?? ["public", "extensions"]) where !names.contains(n) { names.append(n) }
        return names.map { SQL.ident($0) }.joined(separator: ", ")
    }
}

/// The policy test harness: plans every unit from the access files, scenarios and the live
/// catalog, runs them over `jobs` connections (all rolled back) and reports.
public enum Harness {
    public static func run(
        _ input: HarnessInput, options: HarnessOptions = HarnessOptions(), on target: ConnectionString
    ) throws -> TestReport {
        var trace = StepTrace("harness")
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        let plan = try Planner.plan(input, conn: conn, options: options)
        trace.step("planned \(plan.units.count) units")
        // Rows the harness inserts take the columns' defaults: never an id a seeded row holds.
        _ = SequenceLag.catchUp(conn)
        // Where the login fails (not rlskit's sandbox), the units run on `target`, as before.
        let api = options.apiConnection.flatMap { try? PostgresConnection($0) }
        defer { api?.close() }
        let storage = api != nil && plan.units.contains(where: \.storage) ? options.storageConnection : nil
        let outcomes = try execute(
            plan.units, on: api != nil ? options.apiConnection! : target, storage: storage, reuse: api ?? conn,
            jobs: options.jobs,
            skipUntested: options.allowUntested && !options.strict, stopAtFirstFailure: options.stopAtFirstFailure)
        trace.step("ran the units on \(options.jobs) connection\(options.jobs == 1 ? "" : "s")")
        let once = signUpOnce(outcomes)
        return TestReport(outcomes: plan.extra + order(once), notes: plan.notes + Coverage.notes(once, plan: plan))
    }

    /// A sign-up that fails fails every unit the same way: the first unit says why, each later
    /// one only that it could not run (skipped: the first failure already fails the run).
    static func signUpOnce(_ outcomes: [TestOutcome]) -> [TestOutcome] {
        var first: [String: String] = [:]
        return outcomes.map { o in
            guard o.name == UnitRunner.signUpName, o.status == .error, let m = o.message else { return o }
            guard let suite = first[m] else {
                first[m] = o.suite
                return o
            }
            var skipped = TestOutcome(
                suite: o.suite, name: "not covered", status: .skipped,
                message: "not covered: could not run, signing up the test users failed (see \(suite) · \(o.name))",
                location: o.location, actor: o.actor)
            skipped.operation = o.operation
            return skipped
        }
    }

    /// What `run` would do, without doing it: the units and checks planned (bench/plan.sh).
    @_spi(CLI) public static func planSize(
        _ input: HarnessInput, options: HarnessOptions = HarnessOptions(), on target: ConnectionString
    ) throws -> (units: Int, checks: Int) {
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        let plan = try Planner.plan(input, conn: conn, options: options)
        return (plan.units.count, plan.units.reduce(0) { $0 + $1.checks.count })
    }

    /// Runs units on `jobs` threads, one connection each (a connection belongs to one thread).
    static func execute(
        _ units: [HarnessUnit], on target: ConnectionString, storage: ConnectionString? = nil,
        reuse: PostgresConnection, jobs: Int, skipUntested: Bool, stopAtFirstFailure: Bool = false
    ) throws -> [TestOutcome] {
        let stops: @Sendable ([TestOutcome]) -> Bool = { stopAtFirstFailure && $0.contains(where: \.isFailure) }
        let results: [[TestOutcome]?]
        if min(jobs, units.count) <= 1 {
            let storageConn = storage.flatMap { try? PostgresConnection($0) }
            defer { storageConn?.close() }
            let runner = UnitRunner(conn: reuse, storageConn: storageConn, skipUntested: skipUntested)
            results = try WorkerPool.serial(units.count, on: runner) { runner, i in
                let o = try runner.run(units[i])
                return (o, stops(o))
            }
        } else {
            results = try WorkerPool.run(
                units.count, workers: jobs,
                open: {
                    UnitRunner(
                        conn: try PostgresConnection(target),
                        storageConn: storage.flatMap { try? PostgresConnection($0) },
                        skipUntested: skipUntested)
                }
            ) { runner, i in
                let o = try runner.run(units[i])
                return (o, stops(o))
            }
        }
        return results.flatMap { $0 ?? [] }
    }

    /// Matrix results grouped by table, then actor; scenario steps keep their order.
    static func order(_ outcomes: [TestOutcome]) -> [TestOutcome] {
        var suites: [String] = []
        var bySuite: [String: [TestOutcome]] = [:]
        for o in outcomes {
            if bySuite[o.suite] == nil { suites.append(o.suite) }
            bySuite[o.suite, default: []].append(o)
        }
        return suites.flatMap { s -> [TestOutcome] in
            let items = bySuite[s]!
            if items.first?.location?.file.hasSuffix(".scenario") == true { return items }
            let actors = items.reduce(into: [String]()) {
                if !$0.contains($1.actor ?? "") { $0.append($1.actor ?? "") }
            }
            return actors.flatMap { a in items.filter { ($0.actor ?? "") == a } }
        }
    }
}
