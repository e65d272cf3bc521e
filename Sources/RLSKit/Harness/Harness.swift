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
    public init() {}
}

/// The policy test harness: plans every unit from the access files, scenarios and the live
/// catalog, runs them over `jobs` connections (all rolled back) and reports.
public enum Harness {
    public static func run(_ input: HarnessInput, on target: ConnectionString, options: HarnessOptions = HarnessOptions()) throws -> TestReport {
        let conn = try PostgresConnection(target)
        let plan = try Planner.plan(input, conn: conn, options: options)
        let outcomes = try execute(plan.units, on: target, reuse: conn, jobs: options.jobs, skipUntested: options.allowUntested && !options.strict)
        return TestReport(outcomes: plan.extra + order(outcomes), notes: Coverage.notes(outcomes, plan: plan))
    }

    /// Runs units on `jobs` threads, one connection each (a connection belongs to one thread).
    static func execute(_ units: [HarnessUnit], on target: ConnectionString, reuse: PostgresConnection, jobs: Int, skipUntested: Bool) throws -> [TestOutcome] {
        let workers = max(1, min(jobs, units.count))
        if workers == 1 {
            return try units.flatMap { try UnitRunner(conn: reuse, skipUntested: skipUntested).run($0) }
        }
        let shared = SharedProgress()
        let group = DispatchGroup()
        for _ in 0..<workers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let conn = try PostgresConnection(target)
                    let runner = UnitRunner(conn: conn, skipUntested: skipUntested)
                    while shared.failure.withLock({ $0 == nil }) {
                        let i = shared.next.withLock { n -> Int in defer { n += 1 }; return n }
                        guard i < units.count else { break }
                        let r = try runner.run(units[i])
                        shared.results.withLock { $0[i] = r }
                    }
                } catch {
                    shared.failure.withLock { if $0 == nil { $0 = error } }
                }
            }
        }
        group.wait()
        if let e = shared.failure.withLock({ $0 }) { throw e }
        let all = shared.results.withLock { $0 }
        return (0..<units.count).flatMap { all[$0] ?? [] }
    }

    final class SharedProgress: Sendable {
        let next = Mutex(0)
        let results = Mutex<[Int: [TestOutcome]]>([:])
        let failure = Mutex<(any Error)?>(nil)
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
            let actors = items.reduce(into: [String]()) { if !$0.contains($1.actor ?? "") { $0.append($1.actor ?? "") } }
            return actors.flatMap { a in items.filter { ($0.actor ?? "") == a } }
        }
    }
}
