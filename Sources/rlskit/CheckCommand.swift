import Foundation
import Postgres
import RLSKit

/// `rlskit check`: database → stand-in + apply → policy tests → one summary.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "provision a database and prove its policies (throwaway server by default)",
        details: """
        With no database given, starts a throwaway PostgreSQL in a temporary directory, installs
        the Supabase stand-in, applies the migrations, runs the policy tests and prints one
        summary; the server is removed afterwards, also on failure or Ctrl-C.
        Migrations: --dir, else sql/migrations, else supabase/migrations, else the built-in schema.
        Tests: --tests, else sql/tests, else supabase/tests (pgTAP), else the built-in tests when
        the built-in schema was applied. Then the audit: exit 1 when a check fails or a finding is
        at or above --fail-on (default error).
        """,
        options: [
            DatabaseTarget.option,
            .option("dir", "DIR", "Migrations to apply (default: sql/migrations, else supabase/migrations, else built in)."),
            .option("tests", "PATH", "Access files, scenarios or pgTAP files to run (repeatable).", repeatable: true),
            .option("format", "FORMAT", "Combined result for CI: text (default), junit, json or sarif (the audit)."),
            .option("output", "FILE", "Write the --format result to FILE (the text summary still goes to the terminal)."),
            .option("junit", "FILE", "Also write JUnit XML (tests and audit findings) to FILE."),
            .option("sarif", "FILE", "Also write the audit as SARIF 2.1.0 to FILE (code scanning)."),
            .option("json", "FILE", "Also write the combined result as JSON to FILE."),
            .option("jobs", "N", "Spread the checks over N connections (default 1)."),
            .flag("strict", "Fail on RLS tables without declared intent."),
            .flag("allow-untested", "Skip, instead of fail, declared tables and buckets that cannot be tested."),
            .flag("allow-side-effects", "Run tests even where triggers could make real network calls (http, pg_net)."),
            .option("fail-on", "LEVEL", "Audit threshold: error (default), warn or info."),
            .option("exposed-schemas", "LIST", "Comma-separated schemas the API serves (default: pgrst.db_schemas, else public)."),
            .option("baseline", "FILE", "Accepted audit findings: '<fingerprint> # reason' per line."),
            .flag("keep", "Leave the throwaway database running afterwards and print how to connect."),
        ])

    struct Phase {
        var name: String
        var ok: Bool
        var summary: String
        var milliseconds: Int
    }

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let format = try args.value("format").map { f -> String in
            guard ["text", "junit", "json", "sarif"].contains(f) else { throw ConfigurationError("--format must be text, junit, json or sarif (got '\(f)')") }
            return f
        } ?? "text"
        let harness = try TestCommand.harnessOptions(args)
        let output = try OutputTarget(args.value("output"))
        let extraOutputs = try ["junit", "sarif", "json"].compactMap { f in try args.value(f).map { (format: f, target: try OutputTarget($0, option: f)) } }
        // A machine format on standard output keeps it clean: the human summary goes to stderr.
        let machineOnStdout = format != "text" && !output.isFile
        let say: (String) -> Void = machineOnStdout ? { printNote($0) } : { print($0) }
        if args.flag("keep"), args.value("database-url") != nil || ConnectionString.environmentNamesDatabase() {
            printNote("note: --keep only applies to the throwaway database; the given database is left as it is anyway")
        }
        let failOn = try AuditCommand.level(args.value("fail-on") ?? "error")
        let baseline = try args.value("baseline").map(Baseline.load) ?? Baseline()
        let exposed = try args.value("exposed-schemas").map { text -> [String] in
            let names = ExposedSchemas.parseList(text)
            if names.isEmpty { throw ConfigurationError("--exposed-schemas is empty: give a comma-separated list such as public,api") }
            return names
        }
        var migrations = Migrator.Options()
        migrations.source = args.value("dir").map { .directory($0) } ?? .defaultSource()
        let tests = try testInput(args.all("tests"), migrations: migrations.source)
        let progress = Progress(term: term)

        var phases: [Phase] = []
        var clock = Date()
        func lap() -> Int {
            defer { clock = Date() }
            return Int(Date().timeIntervalSince(clock) * 1000)
        }

        progress.show("starting the database")
        let target = try DatabaseTarget.resolve(args) { _ in }
        defer { target.stop() }
        // Closed before the tests: they open their own connections.
        var conn: PostgresConnection? = try target.connect()
        let version: String = try conn!.query("select current_setting('server_version') as v").rows[0].decode("v")
        phases.append(Phase(name: "database", ok: true,
                            summary: (target.isThrowaway ? "throwaway PostgreSQL " : "PostgreSQL ") + version + (target.isThrowaway ? "" : " at \(target.connection.description)"),
                            milliseconds: lap()))

        progress.show("applying \(migrations.source)")
        let applied = try Migrator(conn!, options: migrations).run()
        let standIns = PlatformExtensions.summary(try PlatformExtensions.standInsInstalled(conn!))
        conn = nil
        let count = applied.applied.count
        var applySummary = applied.plan.isEmpty ? "no migrations in \(migrations.source)"
            : count == 0 ? "nothing to apply (\(applied.plan.count) already applied)"
            : "\(count) migration\(count == 1 ? "" : "s") applied from \(migrations.source)"
        if let s = applied.standIn {
            if s.detection.isSupabase { applySummary = "Supabase schemas found; " + applySummary }
            else if !s.installed.isEmpty { applySummary = "stand-in installed; " + applySummary }
        }
        if let standIns { applySummary += "; " + standIns }
        phases.append(Phase(name: "apply", ok: true, summary: applySummary, milliseconds: lap()))

        var report = TestReport()
        var malformed = false
        if tests.harness.isEmpty, tests.pgtap.isEmpty {
            phases.append(Phase(name: "test", ok: true, summary: "no tests found (give --tests, or add sql/tests)", milliseconds: lap()))
        } else {
            progress.show("testing policies")
            (report, malformed) = try TestCommand.execute(on: target, input: tests.harness, pgtap: tests.pgtap, options: harness)
            let summary = "\(report.count(.passed)) passed, \(report.failed) failed" + (report.count(.skipped) > 0 ? ", \(report.count(.skipped)) skipped" : "")
            phases.append(Phase(name: "test", ok: report.passed && !malformed, summary: summary, milliseconds: lap()))
        }
        progress.show("auditing")
        let audit = AuditReport(result: try Auditor.run(try target.connect(), exposedSchemas: exposed, helper: target.connection), baseline: baseline)
        let auditFailed = audit.fails(at: failOn) || !audit.result.failedLints.isEmpty
        func n(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 || word == "info" ? "" : "s")" }
        let levels = "\(n(audit.count(.error), "error")), \(n(audit.count(.warn), "warning")), \(n(audit.count(.info), "info"))"
        phases.append(Phase(name: "audit", ok: !auditFailed,
                            summary: audit.result.failedLints.isEmpty ? levels : "\(audit.result.failedLints.count) lint(s) could not run; " + levels,
                            milliseconds: lap()))
        progress.clear()

        // Details first (failures, coverage), the summary last where the eye lands.
        if !report.outcomes.isEmpty {
            let detail = TestReportWriter.render(report, format: .text, color: term.color && !machineOnStdout)
            if !report.passed { say(String(detail.dropLast())) } else { for n in report.notes { say(n) } }
        }
        if !audit.findings.isEmpty { say(String(audit.text(color: term.color && !machineOnStdout).dropLast())) }
        let passed = phases.allSatisfy(\.ok)
        for p in phases {
            let mark = p.ok ? term.green("✓") : term.red("✗")
            say("  \(mark) \(p.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(p.summary)  " + term.dim("\(p.milliseconds) ms"))
        }
        let total = phases.reduce(0) { $0 + $1.milliseconds }
        say((passed ? term.green("passed") : term.red("failed")) + " in " + String(format: "%.1f s", Double(total) / 1000))

        func rendered(_ format: String) -> String {
            switch format {
            case "junit": return TestReportWriter.render(withAudit(report, audit, failOn), format: .junit)
            case "sarif": return audit.sarif()
            default: return json(phases, report, audit, passed)
            }
        }
        for extra in extraOutputs { try extra.target.write(rendered(extra.format)) }
        if format != "text" { try output.write(rendered(format)) }
        if args.flag("keep"), let cluster = target.cluster {
            let pid = cluster.detach()
            say("kept the throwaway database; connect with: psql \"\(cluster.connectionString.raw)\"")
            say("stop it with: kill \(pid) && rm -rf \(cluster.directory)")
        }
        // Test hook: keeps the server up so tests can interrupt a running check.
        if let hold = ProcessInfo.processInfo.environment["RLSKIT_TEST_HOLD_SECONDS"].flatMap(Double.init) {
            Thread.sleep(forTimeInterval: hold)
        }
        if malformed { return .usage }
        return passed ? .success : .checksFailed
    }

    /// What to test: --tests, else sql/tests, else supabase/tests, else the built-in tests
    /// when the built-in schema is what was applied.
    static func testInput(_ given: [String], migrations: MigrationSource) throws -> (harness: HarnessInput, pgtap: [(path: String, display: String)]) {
        var paths = given
        if paths.isEmpty {
            paths = ["sql/tests", "supabase/tests"].filter { FileManager.default.fileExists(atPath: $0) }
            if paths.isEmpty, migrations == .builtIn {
                do { return (try HarnessLoader.builtIn(), []) } catch let e as InputError { throw ConfigurationError(e.description) }
            }
        }
        if paths.isEmpty { return (HarnessInput(), []) }
        let (ours, pgtap) = try TestCommand.route(paths)
        do {
            return (try HarnessLoader.load(ours), pgtap.isEmpty ? [] : try PgTAPRunner.discover(pgtap))
        } catch let e as InputError {
            throw ConfigurationError(e.description)
        }
    }

    /// The audit's findings as JUnit cases next to the tests: those at or above the threshold fail.
    static func withAudit(_ report: TestReport, _ audit: AuditReport, _ failOn: Level) -> TestReport {
        var r = report
        r.outcomes += audit.findings.map { f in
            TestOutcome(suite: "audit", name: "\(f.lint) \(f.object.schema).\(f.object.name)" + (f.object.member.map { " (\($0))" } ?? ""),
                        status: f.level >= failOn ? .failed : .passed, message: f.detail + " " + f.remediation)
        }
        return r
    }

    static func json(_ phases: [Phase], _ report: TestReport, _ audit: AuditReport, _ passed: Bool) -> String {
        let tests = (try? JSONSerialization.jsonObject(with: Data(TestReportWriter.render(report, format: .json).utf8))) ?? [:]
        let findings = (try? JSONSerialization.jsonObject(with: Data(audit.json().utf8))) ?? [:]
        let doc: [String: Any] = [
            "passed": passed,
            "phases": phases.map { ["name": $0.name, "ok": $0.ok, "summary": $0.summary, "milliseconds": $0.milliseconds] as [String: Any] },
            "tests": tests,
            "audit": findings,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: doc, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

/// A one-line "working on …" note on a terminal's stderr, replaced as phases go; nothing
/// when output is not a terminal (CI logs stay plain).
struct Progress {
    let enabled: Bool
    init(term: Terminal) { enabled = isatty(2) == 1 && term.color }
    func show(_ what: String) {
        guard enabled else { return }
        printErrRaw("\r\u{1B}[K… \(what)")
    }
    func clear() {
        guard enabled else { return }
        printErrRaw("\r\u{1B}[K")
    }
}
