import Foundation
import Postgres

/// `rlskit check` as a library call: the database → the Supabase stand-in and the migrations →
/// the policy tests → the audit, each a phase with its summary and time.
public enum ProjectCheck {
    public struct Input: Sendable {
        public var migrations: MigrationSource
        public var tests: TestSuite
        /// The Supabase project around the migrations: its `config.toml` and seed files.
        public var project: SupabaseProject?
        public init(migrations: MigrationSource, tests: TestSuite, project: SupabaseProject? = nil) {
            self.migrations = migrations
            self.tests = tests
            self.project = project
        }
    }

    public struct Options: Sendable {
        public var migrations = Migrator.Options()
        public var harness = HarnessOptions()
        public var audit = AuditOptions()
        public var baseline = Baseline()
        /// `--grants`: the regime to model on a throwaway database, else chosen from the project.
        public var grants: GrantsRegime.Mode?
        /// Findings at or above this level fail the check.
        public var failOn: FindingLevel = .error
        /// A run that applied nothing or tested nothing passes only when this is set.
        public var allowEmpty = false
        public init() {}
    }

    /// Where the check runs.
    public struct Database: Sendable {
        public var connection: ConnectionString
        /// rlskit started it and deletes it afterwards: sequences are put back there only.
        public var isThrowaway: Bool
        /// Time already spent starting it, counted in the database phase.
        public var startMilliseconds: Int
        /// A throwaway server's `postgres` (not a superuser, as on hosted Supabase): migrations,
        /// seeds and pgTAP files run as it; rlskit's own work uses `connection`, the admin.
        public var project: ConnectionString?
        public init(connection: ConnectionString, isThrowaway: Bool, startMilliseconds: Int = 0) {
            self.connection = connection
            self.isThrowaway = isThrowaway
            self.startMilliseconds = startMilliseconds
        }
    }

    public struct Phase: Sendable, Equatable {
        public var name: String
        public var ok: Bool
        public var summary: String
        public var milliseconds: Int
    }

    public struct Report: Sendable {
        public var phases: [Phase]
        public var migrations: Migrator.Result
        public var tests: TestReport
        /// Mistakes in test files found while they ran (exit 2 in the CLI).
        public var problems: [InputError]
        public var audit: AuditReport
        public var failOn: FindingLevel
        /// RLS tables in the exposed schemas when no tests were given: each is untested.
        public var untestedTables: [String] = []
        /// The grants regime modelled on a throwaway database; nil on a given one.
        public var grants: GrantsRegime? = nil
        /// Nothing was applied (no migration files) or nothing was tested.
        public var checkedNothing: Bool { migrations.plan.isEmpty || tests.outcomes.isEmpty }
        public var passed: Bool { phases.allSatisfy(\.ok) && problems.isEmpty }

        /// Tests plus the audit's findings as test cases (those at or above `failOn` fail).
        public var testsWithAudit: TestReport {
            var r = tests
            r.outcomes += audit.findings.map { f in
                TestOutcome(
                    suite: "audit",
                    name: "\(f.lint) \(f.object.schema).\(f.object.name)" + (f.object.member.map { " (\($0))" } ?? ""),
                    status: f.level >= failOn ? .failed : .passed, message: f.detail + " " + f.remediation)
            }
            return r
        }

        /// The whole result as one JSON document (what `check --json` writes).
        public func json() -> String { jsonValue.rendered() + "\n" }

        var jsonValue: JSON {
            .sortedObject([
                ("passed", .bool(passed)),
                // Read without parsing phases: an empty run is never a pass unless allowed.
                ("checkedNothing", .bool(checkedNothing)),
                ("nothingApplied", .bool(migrations.plan.isEmpty)),
                ("nothingTested", .bool(tests.outcomes.isEmpty)),
                ("warnings", .array(migrations.warnings.map { .string($0) })),
                (
                    "phases",
                    .array(
                        phases.map {
                            .sortedObject([
                                ("name", .string($0.name)), ("ok", .bool($0.ok)), ("summary", .string($0.summary)),
                                ("milliseconds", .int($0.milliseconds)),
                            ])
                        })
                ),
                ("tests", TestReportWriter.jsonValue(tests)),
                ("audit", audit.jsonValue()),
            ])
        }
    }

    public static func run(
        _ input: Input, options: Options = Options(), on database: Database,
        progress: (String) -> Void = { _ in }
    ) throws -> Report {
        var phases: [Phase] = []
        var clock = Date()
        func lap() -> Int {
            defer { clock = Date() }
            return Int(Date().timeIntervalSince(clock) * 1000)
        }
        let target = database.connection
        // One connection for the check's own questions; the engines open theirs.
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        let version: String = try conn.query("select current_setting('server_version') as v").rows[0].decode("v")
        phases.append(
            Phase(
                name: "database", ok: true,
                summary: (database.isThrowaway ? "throwaway PostgreSQL " : "PostgreSQL ") + version
                    + (database.isThrowaway ? "" : " at \(target.description)")
                    + (database.project == nil ? "" : "; postgres is not a superuser, as on hosted Supabase"),
                milliseconds: database.startMilliseconds + lap()))

        progress("applying \(input.migrations)")
        var options = (input.project.map { options.adopting($0, throwaway: database.isThrowaway) } ?? options)
            .exposing(input.tests.harness.access)
        let regime =
            database.isThrowaway
            ? GrantsRegime.choose(
                flag: options.grants, config: input.project?.config,
                versions: try input.migrations.load().map(\.version)) : nil
        options.migrations.grants = regime
        options.migrations.projectConnection = database.project
        options.harness.pgtapConnection = database.project
        let applied = try Migrator.run(input.migrations, options: options.migrations, on: target)
        var summary = applySummary(applied, input.migrations)
        if database.isThrowaway, let warning = input.project?.seedWarning { summary += "; " + warning }
        if let config = input.project?.config, !config.settingsUsed.isEmpty {
            summary += "; from \(config.path): " + config.settingsUsed.joined(separator: ", ")
        }
        if let regime { summary += "; \(regime)" }
        if let hook = options.harness.accessTokenHook {
            let named = hook.source == "--access-token-hook" ? "\(hook)" : input.project?.config?.customAccessTokenHook
            summary +=
                "; custom access token hook \(named ?? "\(hook)") runs for the test users of access files and scenarios"
        } else if let hook = input.project?.config?.customAccessTokenHook {
            summary += "; note: custom access token hook \(hook) is not run, so tests see only the claims they set"
        }
        if let standIns = PlatformExtensions.summary(try PlatformExtensions.standInsInstalled(conn)) {
            summary += "; " + standIns
        }
        phases.append(
            Phase(name: "apply", ok: !applied.plan.isEmpty || options.allowEmpty, summary: summary, milliseconds: lap())
        )

        var tests = TestReport()
        var problems: [InputError] = []
        var untested: [String] = []
        if input.tests.isEmpty {
            let schemas = try options.audit.exposedSchemas ?? ExposedSchemas.detect(conn).names
            untested = try Catalog.rlsTables(conn, schemas: schemas)
            let tables =
                untested.isEmpty ? "" : "; \(untested.count) RLS table\(untested.count == 1 ? "" : "s") untested"
            phases.append(
                Phase(
                    name: "test", ok: options.allowEmpty,
                    summary: "nothing tested: no tests found (give --tests, or add sql/tests)" + tables,
                    milliseconds: lap()))
        } else {
            progress("testing policies")
            let r = try PolicyTests.run(
                input.tests, options: options.harness, on: target, ownsDatabase: database.isThrowaway)
            (tests, problems) = (regime.map { r.report.naming($0) } ?? r.report, r.problems)
            let summary =
                "\(tests.count(.passed)) passed, \(tests.failed) failed"
                + (tests.count(.skipped) > 0 ? ", \(tests.count(.skipped)) skipped" : "")
            phases.append(
                Phase(name: "test", ok: tests.passed && problems.isEmpty, summary: summary, milliseconds: lap()))
        }

        progress("auditing")
        let audit = AuditReport(result: try Auditor.run(options: options.audit, on: target), baseline: options.baseline)
        let auditFailed = audit.fails(at: options.failOn) || !audit.result.failedLints.isEmpty
        func n(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 || word == "info" ? "" : "s")" }
        let levels =
            "\(n(audit.count(.error), "error")), \(n(audit.count(.warn), "warning")), \(n(audit.count(.info), "info"))"
        phases.append(
            Phase(
                name: "audit", ok: !auditFailed,
                summary: audit.result.failedLints.isEmpty
                    ? levels : "\(audit.result.failedLints.count) lint(s) could not run; " + levels,
                milliseconds: lap()))
        return Report(
            phases: phases, migrations: applied, tests: tests, problems: problems, audit: audit, failOn: options.failOn,
            untestedTables: untested, grants: regime)
    }

    static func applySummary(_ applied: Migrator.Result, _ source: MigrationSource) -> String {
        var summary = migrationSummary(applied, source)
        if !applied.seeded.isEmpty {
            summary += "; seeded from " + applied.seeded.joined(separator: ", ")
        }
        if !applied.buckets.isEmpty {
            summary += "; bucket\(applied.buckets.count == 1 ? "" : "s") " + applied.buckets.joined(separator: ", ")
        }
        if !applied.skipped.isEmpty {
            summary += "; skipped " + applied.skipped.joined(separator: ", ") + " (not named <digits>_<name>.sql)"
        }
        return summary
    }

    static func migrationSummary(_ applied: Migrator.Result, _ source: MigrationSource) -> String {
        let count = applied.applied.count
        var summary =
            applied.plan.isEmpty
            ? (source == .none
                ? "nothing applied: no sql/migrations or supabase/migrations here (give --dir DIR, or --builtin)"
                : "nothing applied: no .sql files in \(source)")
            : count == 0
                ? "nothing to apply (\(applied.plan.count) already applied)"
                : "\(count) migration\(count == 1 ? "" : "s") applied from \(source)"
        if let s = applied.standIn {
            if s.detection.isSupabase {
                summary = "Supabase schemas found; " + summary
            } else if !s.installed.isEmpty {
                summary = "stand-in installed; " + summary
            }
        }
        return summary
    }
}

extension ProjectCheck.Options {
    /// What the project's files set and the command line did not: exposed schemas; on a
    /// throwaway database also seeds and buckets (a given database was seeded by its owner,
    /// `supabase db reset` for a local one: seeding it again would duplicate rows).
    func adopting(_ project: SupabaseProject, throwaway: Bool = true) -> Self {
        var o = self
        if throwaway, o.migrations.seeds.isEmpty { o.migrations.seeds = project.seeds }
        if throwaway, o.migrations.buckets.isEmpty { o.migrations.buckets = project.config?.buckets ?? [] }
        if o.harness.exposedSchemas == nil { o.harness.exposedSchemas = project.config?.exposedSchemas }
        if o.harness.accessTokenHook == nil { o.harness.accessTokenHook = project.config?.accessTokenHook }
        if o.harness.extraSearchPath == nil { o.harness.extraSearchPath = project.config?.extraSearchPath }
        if o.audit.exposedSchemas == nil, let schemas = project.config?.exposedSchemas {
            o.audit.exposedSchemas = schemas
            o.audit.exposedSource = project.config!.path
        }
        return o
    }
}

extension ProjectCheck.Options {
    /// The access files' `expose` lines feed the audit too, beside `config.toml`'s schemas
    /// (a schema either names is served); only `--exposed-schemas` overrides them.
    func exposing(_ access: [AccessFile]) -> Self {
        let lines = access.flatMap { zip($0.exposedSchemas, $0.exposedLocations) }
        let given = audit.exposedSchemas != nil && audit.exposedSource == "--exposed-schemas"
        guard !lines.isEmpty, !given else { return self }
        var o = self
        var names = audit.exposedSchemas ?? []
        for (name, _) in lines where !names.contains(name) { names.append(name) }
        var sources = audit.exposedSchemas == nil ? [] : [audit.exposedSource]
        for (_, at) in lines where !sources.contains(at.file) { sources.append(at.file) }
        o.audit.exposedSchemas = names
        o.audit.exposedSource = sources.joined(separator: " and ")
        return o
    }
}
