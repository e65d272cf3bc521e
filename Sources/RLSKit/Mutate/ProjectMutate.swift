import Foundation
import Postgres

/// `rlskit mutate` as a library call: the database provisioned as `check` provisions it, the
/// tests run once as they are, then once per mutant with the mutant in force.
public enum ProjectMutate {
    public struct Progress: Sendable {
        public var done: Int
        public var total: Int
        public var killed: Int
        public var survived: Int
    }

    public static func run(
        _ input: ProjectCheck.Input, options: ProjectCheck.Options = ProjectCheck.Options(),
        on database: ProjectCheck.Database, progress: (String) -> Void = { _ in },
        mutantDone: (Progress) -> Void = { _ in }
    ) throws -> MutationReport {
        guard database.isThrowaway else {
            throw ConfigurationError(
                "mutate changes policies and grants: it runs only on the throwaway database it starts (drop --database-url and unset DATABASE_URL)"
            )
        }
        let started = Date()
        let conn = try PostgresConnection(database.connection)
        defer { conn.close() }
        let project = try Project.resolve(input.given)
        guard !project.tests.isEmpty else {
            throw ConfigurationError(
                "nothing to test the mutants with: no tests found (give --tests, or add sql/tests)")
        }
        progress("applying \(project.migrations)")
        var options = options
        options.migrations = try project.migrator(
            options.migrations, throwaway: true, projectConnection: database.project)
        let applied = try Migrator.run(project.migrations, options: options.migrations, on: database.connection)
        guard !applied.plan.isEmpty else {
            throw ConfigurationError(
                "nothing to mutate: \(ProjectCheck.migrationSummary(applied, project.migrations))")
        }
        let exposure = try project.exposure(on: conn)
        var harness = project.harness(options.harness, exposure: exposure)
        harness.pgtapConnection = database.project
        var suite = TestRun(suite: project.tests, options: harness, target: database.connection)

        progress("running the tests once as they are")
        let first = Date()
        let baseline = try suite.run(suite.suite)
        let baselineMilliseconds = Int(Date().timeIntervalSince(first) * 1000)
        if let failing = baseline.outcomes.first(where: \.isFailure) {
            throw TestsFailBeforeMutation(failed: baseline.failed, first: TestRun.name(failing))
        }

        suite.stopAtFirstFailure = true
        let catalog = try MutationCatalog.read(conn, exposed: exposure.names)
        let source = MutantSource(try project.migrations.load())
        var mutants = MutantGenerator.mutants(catalog)
        let sandbox = InPlaceMutations(conn: conn)
        let digest = try SurfaceDigest(conn, exposed: exposure.names, catalog: catalog)
        let pgtap = PgTAPSuggestion(
            helpers: suite.suite.pgtap.contains { f in
                (try? String(contentsOfFile: f.path, encoding: .utf8))?.contains("tests.authenticate_as(") ?? false
            })
        var counts = Progress(done: 0, total: mutants.count, killed: 0, survived: 0)
        progress("\(mutants.count) mutants")
        for i in mutants.indices {
            var m = mutants[i]
            let (schema, table) = catalog.split(m)
            m.location =
                m.policy.flatMap { source.policy($0, schema: schema, table: table) }
                ?? source.table(schema: schema, name: table)
                ?? m.function.flatMap { source.function(schema: $0.schema, name: $0.name) }
            if let why = m.equivalentBecause {
                m.status = .equivalent
                m.note = why
            } else {
                try evaluate(&m, sandbox: sandbox, suite: suite, conn: conn, schema: schema, table: table)
                try digest.verifyChanged(after: m)
            }
            if m.status == .survived {
                let t = catalog.tables.first { $0.schema == schema && $0.name == table }
                m.suggestion = KillSuggestion.text(
                    m, table: t, policies: catalog.policies.filter { $0.schema == schema && $0.table == table })
                m.pgtapSuggestion = pgtap.text(m, columns: t?.columns.map(\.name) ?? [])
            }
            mutants[i] = m
            counts.done += 1
            if m.status == .killed { counts.killed += 1 }
            if m.status == .survived { counts.survived += 1 }
            mutantDone(counts)
        }
        if let last = mutants.last(where: { $0.status != .equivalent }) {
            try digest.verify(after: last)
            try digest.verifySurface(after: last)
        }
        return MutationReport(
            mutants: mutants, baselineMilliseconds: baselineMilliseconds,
            milliseconds: Int(Date().timeIntervalSince(started) * 1000), migrations: applied.applied.count,
            tests: baseline.outcomes.count)
    }

    /// Applies, tests (the tests about its table first, then all of them), undoes.
    static func evaluate(
        _ m: inout Mutant, sandbox: MutationSandbox, suite: TestRun, conn: PostgresConnection, schema: String,
        table: String
    ) throws {
        do { try sandbox.apply(m) } catch let e as PostgresError where e.kind == .server {
            m.status = .error
            m.note = "could not apply: " + e.message
            return
        }
        var failure: Error?
        do {
            if let original = m.original,
                try MutationCatalog.policy(conn, like: original) == original
            {
                m.status = .equivalent
                m.note = "the server stores the same policy"
            } else {
                // A function may be called from any table's unit: all of them run.
                let focused = m.kind == "drop-caller-check" ? suite.suite : suite.focused(schema: schema, table: table)
                var report = try suite.run(focused)
                if !report.outcomes.contains(where: \.isFailure), !suite.isWhole(focused) {
                    report = try suite.run(suite.suite)
                }
                if let failing = report.outcomes.first(where: \.isFailure) {
                    m.status = .killed
                    m.killedBy = TestRun.name(failing)
                } else {
                    m.status = .survived
                }
            }
        } catch let e as PostgresError where e.kind == .server {
            m.status = .error
            m.note = "the tests could not run: " + e.message
        } catch {
            failure = error
        }
        try sandbox.undo(m)
        if let failure { throw failure }
    }
}

/// The project's tests, whole or narrowed to one table.
struct TestRun {
    let suite: TestSuite
    let options: HarnessOptions
    let target: ConnectionString
    /// Mutants only need to know whether a test fails; the baseline runs everything.
    var stopAtFirstFailure = false

    func run(_ s: TestSuite) throws -> TestReport {
        var o = options
        // Narrowed to one table, the others are undeclared: --strict is for the whole suite.
        if !isWhole(s) { o.strict = false }
        o.stopAtFirstFailure = stopAtFirstFailure
        return try PolicyTests.run(s, options: o, on: target, ownsDatabase: true).report
    }

    /// The access-file blocks, scenarios and pgTAP files that name the table (storage.objects:
    /// the buckets and the scenarios that upload or read storage).
    func focused(schema: String, table: String) -> TestSuite {
        var s = suite
        let storage = schema == "storage" && table == "objects"
        s.harness.access = suite.harness.access.map { a in
            var a = a
            a.tables = storage ? [] : a.tables.filter { $0.schema == schema && $0.name == table }
            if !storage { a.buckets = [] }
            return a
        }
        let needles = storage ? ["upload ", "remove ", "storage."] : [table]
        s.harness.scenarios = suite.harness.scenarios.compactMap { file in
            let kept = file.scenarios.filter { sc in
                sc.steps.contains { st in needles.contains { st.text.contains($0) } }
            }
            return kept.isEmpty ? nil : (file.file, kept)
        }
        s.pgtap = suite.pgtap.filter { f in
            (try? String(contentsOfFile: f.path, encoding: .utf8)).map { t in needles.contains { t.contains($0) } }
                ?? true
        }
        return s
    }

    func isWhole(_ s: TestSuite) -> Bool {
        s.pgtap.count == suite.pgtap.count && s.harness.access == suite.harness.access
            && s.harness.scenarios.map(\.scenarios.count) == suite.harness.scenarios.map(\.scenarios.count)
    }

    static func name(_ o: TestOutcome) -> String {
        "\(o.suite): \(o.name)" + (o.location.map { " (\($0))" } ?? "")
    }
}

extension MutationCatalog {
    /// The schema and name of the table a mutant is about.
    func split(_ m: Mutant) -> (String, String) {
        if let p = m.original { return (p.schema, p.table) }
        if let t = tables.first(where: { $0.display == m.table }) { return (t.schema, t.name) }
        return ("", m.table)
    }
}

/// The suite must pass before a mutant can say anything.
public struct TestsFailBeforeMutation: Error, CustomStringConvertible {
    public var failed: Int
    public var first: String
    public var description: String {
        "the tests fail before any mutant is applied (\(failed) failing, first \(first)): make `rlskit check` pass first"
    }
}
