import Foundation
import Postgres

/// `rlskit check` as a library call: the database → the Supabase stand-in and the migrations →
/// the policy tests → the audit, each a phase with its summary and time.
public enum ProjectCheck {
    /// What to check: the project as the caller gave it, resolved once by `run`.
    public struct Input: Sendable {
        public var given: Project.Given
        public init(migrations: MigrationSource, tests: TestSuite) {
            given = Project.Given(migrations: migrations)
            given.tests = tests
        }
        public init(_ given: Project.Given) { self.given = given }
    }

    public struct Options: Sendable {
        public var migrations = Migrator.Options()
        public var harness = HarnessOptions()
        public var baseline = Baseline()
        /// Findings at or above this level fail the check.
        public var failOn: FindingLevel = .error
        /// A run that applied nothing or tested nothing passes only when this is set.
        public var allowEmpty = false
        /// Attack RLS tables no access file declares, their intent inferred (`InferredAttack`).
        public var inferred = true
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
        /// A kept server (`check --watch`): `postgres` is cloned from its templates before the
        /// migrations, so only what changed since the last run is applied.
        public var kept: KeptServer?
        /// The throwaway server started from a cached template that holds the stand-in and the
        /// platform's grants already (`LocalCluster.isPrepared`).
        public var prepared = false
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
        /// The project's settings with where each came from (`exposed schemas: public (default)`).
        public var settings: [String] = []
        /// Tables and buckets the inferred attack checked (with no tests, they are what was tested).
        public var attacked = 0
        /// Nothing was applied (no migration files) or nothing was tested (nor attacked).
        public var checkedNothing: Bool { migrations.plan.isEmpty || (tests.outcomes.isEmpty && attacked == 0) }
        public var passed: Bool { phases.allSatisfy(\.ok) && problems.isEmpty }

        /// Tests plus the audit's findings as test cases (those at or above `failOn` fail).
        public var testsWithAudit: TestReport {
            var r = tests
            r.outcomes += audit.findings.map { f in
                TestOutcome(
                    suite: "audit",
                    name: "\(f.lint) \(f.object.schema).\(f.object.name)" + (f.object.member.map { " (\($0))" } ?? ""),
                    status: f.level >= failOn ? .failed : .passed,
                    message: f.detail + (f.proof.map { ". " + $0.line + "." } ?? "") + " " + f.remediation)
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
                ("nothingTested", .bool(tests.outcomes.isEmpty && attacked == 0)),
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
        var trace = StepTrace("check")
        let target = database.connection
        let project = try Project.resolve(input.given)
        // Before any connection to `postgres` opens: the clone replaces that database.
        let template = try database.kept?.prepare(project)
        trace.step("resolved the project and prepared the templates")
        // One connection for the check's own questions; the engines open theirs.
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        let version: String = try conn.query("select current_setting('server_version') as v").rows[0].decode("v")
        phases.append(
            Phase(
                name: "database", ok: true,
                summary: (database.isThrowaway ? "throwaway PostgreSQL " : "PostgreSQL ") + version
                    + (database.isThrowaway ? "" : " at \(target.label)")
                    + (database.project == nil ? "" : "; postgres is not a superuser, as on hosted Supabase"),
                milliseconds: database.startMilliseconds + lap() - (template?.milliseconds ?? 0)))

        progress("applying \(project.migrations)")
        var options = options
        options.migrations = try project.migrator(
            options.migrations, throwaway: database.isThrowaway, projectConnection: database.project)
        // `prepare` always leaves postgres with the stand-in and the platform's grants.
        options.migrations.platformGrantsInstalled = template != nil || database.prepared
        let regime = options.migrations.grants
        let applied = try Migrator.run(project.migrations, options: options.migrations, on: target)
        trace.step("migrations and seeds")
        // After the migrations: they may set pgrst.db_schemas.
        let exposure = try project.exposure(on: conn)
        // The audit only reads the catalog, which the tests (all rolled back) leave as it is:
        // it runs on its own connection while they run, waiting for no lock a test holds (a
        // scenario's DDL), so neither can hold the other up; then, or on any failure, it runs
        // again after them.
        let beside = noLockWaits(target)
        let auditing = WorkerPool.start(1, workers: 1, open: {}) { _, _ in
            (try Auditor.run(options: AuditOptions(exposed: exposure), on: beside ?? target), false)
        }
        options.harness = project.harness(options.harness, exposure: exposure)
        options.harness.pgtapConnection = database.project
        var summary = applySummary(applied, project.migrations, template: template, prepared: database.prepared)
        let config = project.supabase?.config
        if database.isThrowaway, let warning = project.supabase?.seedWarning { summary += "; " + warning }
        if database.isThrowaway, !applied.seeded.isEmpty, let lags = try? SequenceLag.find(conn), !lags.isEmpty {
            summary += "; " + SequenceLag.warning(lags)
        }
        if let config, !config.settingsUsed.isEmpty {
            summary += "; from \(config.path): " + config.settingsUsed.joined(separator: ", ")
        }
        if let regime { summary += "; \(regime)" }
        if let hook = project.accessTokenHook {
            let named = hook == config?.accessTokenHook ? config?.customAccessTokenHook ?? "\(hook)" : "\(hook)"
            summary += "; custom access token hook \(named) runs for the test users of access files and scenarios"
        } else if let hook = config?.customAccessTokenHook {
            summary += "; note: custom access token hook \(hook) is not run, so tests see only the claims they set"
        }
        if let standIns = PlatformExtensions.summary(try PlatformExtensions.standInsInstalled(conn)) {
            summary += "; " + standIns
        }
        phases.append(
            Phase(
                name: "apply", ok: !applied.plan.isEmpty || options.allowEmpty, summary: summary,
                milliseconds: lap() + (template?.milliseconds ?? 0))
        )
        trace.step("apply summary")

        var tests = TestReport()
        var problems: [InputError] = []
        var untested: [String] = []
        if project.tests.isEmpty {
            untested = try Catalog.rlsTables(conn, schemas: exposure.names)
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
                project.tests, options: options.harness, on: target, ownsDatabase: database.isThrowaway)
            (tests, problems) = (regime.map { r.report.naming($0) } ?? r.report, r.problems)
            let summary =
                "\(tests.count(.passed)) passed, \(tests.failed) failed"
                + (tests.count(.skipped) > 0 ? ", \(tests.count(.skipped)) skipped" : "")
            phases.append(
                Phase(name: "test", ok: tests.passed && problems.isEmpty, summary: summary, milliseconds: lap()))
        }
        trace.step("tests")

        progress("auditing")
        var result: AuditResult
        if let done = (try? auditing.wait())?.first ?? nil, done.failedLints.isEmpty {
            result = done
        } else {
            result = try Auditor.run(options: AuditOptions(exposed: exposure), on: target)
        }
        trace.step("audit (after the tests)")
        // Every ERROR is proven by its exploit (rolled back) or lowered to WARN with the reason.
        progress("proving findings")
        // As the API sends them: on a throwaway server through a login as authenticator.
        let api =
            result.findings.contains { $0.level == .error }
            ? database.project.flatMap { Sandbox.apiConnection(admin: target, project: $0) } : nil
        let proofs = try Prover.prove(
            result.findings, on: database.project ?? target, admin: target, api: api, ownsDatabase: database.isThrowaway
        )
        result.findings = proofs.findings
        trace.step("proofs")
        if !proofs.sequences.isEmpty {
            tests.sequences = SequenceAdvance.merged(tests.sequences, proofs.sequences)
            if let note = SequenceGuard.note(proofs.sequences) { tests.notes.append(note + " (the audit's proofs)") }
        }
        let auditMilliseconds = lap()
        var attackPhase: Phase?
        var attacked = 0
        if options.inferred {
            progress("attacking tables without declared intent")
            let attack = try InferredAttack.run(
                schemas: exposure.names, declared: project.tests.declaredBlocks, options: options.harness,
                on: target, ownsDatabase: database.isThrowaway)
            result.findings += attack.findings
            tests.notes += attack.notes
            attacked = attack.covered
            // With no tests, the attack is the test: the run checked something.
            if project.tests.isEmpty, attacked > 0, let i = phases.firstIndex(where: { $0.name == "test" }) {
                phases[i].ok = true
                phases[i].summary = "no tests found (give --tests, or add sql/tests); the tables were attacked instead"
            }
            if !attack.sequences.isEmpty {
                tests.sequences = SequenceAdvance.merged(tests.sequences, attack.sequences)
            }
            attackPhase =
                Phase(
                    name: "attack", ok: true,
                    summary: attack.tables.isEmpty
                        ? (attack.notes.contains { $0.hasPrefix("inferred intent not attacked") }
                            ? "not run (see the notes)"
                            : project.tests.declaredBlocks.isEmpty
                                ? "no RLS table or bucket in the exposed schemas to attack"
                                : "every RLS table and bucket has declared intent")
                        : "\(attack.attacked) without declared intent attacked: "
                            + "\(attack.findings.count) hole\(attack.findings.count == 1 ? "" : "s") proven"
                            + (attack.covered < attack.tables.count
                                ? "; \(attack.tables.count - attack.covered) could not be (see the notes)" : ""),
                    milliseconds: lap())
        }
        trace.step("inferred attack")
        let audit = AuditReport(result: result, baseline: options.baseline)
        let auditFailed = audit.fails(at: options.failOn) || !audit.result.failedLints.isEmpty
        let levels = audit.levelsLine
        phases.append(
            Phase(
                name: "audit", ok: !auditFailed,
                summary: audit.result.failedLints.isEmpty
                    ? levels : "\(audit.result.failedLints.count) lint(s) could not run; " + levels,
                milliseconds: auditMilliseconds + lap()))
        if let attackPhase { phases.append(attackPhase) }
        return Report(
            phases: phases, migrations: applied, tests: tests, problems: problems, audit: audit, failOn: options.failOn,
            untestedTables: untested, grants: regime, settings: project.settingLines(exposure: exposure),
            attacked: attacked)
    }

    /// `target` with a short `lock_timeout` added to its options (the string's, else PGOPTIONS).
    static func noLockWaits(_ target: ConnectionString) -> ConnectionString? {
        guard var o = try? target.options() else { return nil }
        let given = o["options"] ?? ProcessInfo.processInfo.environment["PGOPTIONS"] ?? ""
        o["options"] = (given + " -c lock_timeout=100").trimmingCharacters(in: .whitespaces)
        return ConnectionString(
            o.sorted { $0.key < $1.key }.map { "\($0.key)=\(ConnectionString.quoted($0.value))" }.joined(
                separator: " "))
    }

    static func applySummary(
        _ applied: Migrator.Result, _ source: MigrationSource, template: KeptServer.Prepared? = nil,
        prepared: Bool = false
    ) -> String {
        var summary = migrationSummary(applied, source, template: template, prepared: prepared)
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

    /// `prepared`: the stand-in came with the cached cluster template, installed there as here.
    static func migrationSummary(
        _ applied: Migrator.Result, _ source: MigrationSource, template: KeptServer.Prepared? = nil,
        prepared: Bool = false
    ) -> String {
        let count = applied.applied.count + (template?.applied ?? 0)
        var summary =
            applied.plan.isEmpty
            ? (source == .none
                ? "nothing applied: no sql/migrations or supabase/migrations here (give --dir DIR, or --builtin)"
                : "nothing applied: no .sql files in \(source)")
            : count == 0
                ? "nothing to apply (\(applied.plan.count) already applied)"
                : "\(count) migration\(count == 1 ? "" : "s") applied from \(source)"
        if let template {
            summary += " (\(template.cloned) from a template database"
            if let wide = template.clusterWide {
                summary +=
                    "; not cached from \(wide.file):\(wide.line) on: it may change roles or other cluster-wide state"
            }
            summary += ")"
            return "stand-in installed; " + summary
        }
        if let s = applied.standIn {
            if s.detection.isSupabase {
                summary = "Supabase schemas found; " + summary
            } else if !s.installed.isEmpty || prepared {
                summary = "stand-in installed; " + summary
            }
        }
        return summary
    }
}
