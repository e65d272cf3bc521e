import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `rlskit check`: database → stand-in + apply → policy tests → one summary.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "provision a database and prove its policies (throwaway server by default)",
        details: """
            With no database given, starts a throwaway PostgreSQL in a temporary directory, installs
            the Supabase stand-in, applies the migrations, runs the policy tests and prints one
            summary; the server is removed afterwards, also on failure or Ctrl-C.
            Migrations: --dir, else sql/migrations, else supabase/migrations; --builtin applies
            rlskit's example schema instead. The folder above the migrations may hold config.toml
            and seed.sql, read as the Supabase CLI reads them. Tests: --tests, else sql/tests, else
            supabase/tests (pgTAP), else the built-in tests with --builtin. Then the audit: exit 1
            when a check fails or a finding is at or above --fail-on (default error), and when
            nothing was applied or nothing tested (unless --allow-empty). RLS tables no access file
            declares are attacked with their intent inferred (--no-inferred skips it): a check that
            goes through is an ERROR naming the assumption it rests on.
            """,
        options: [
            DatabaseTarget.option,
            .option(
                "dir", "DIR", "Migrations to apply (default: sql/migrations, else supabase/migrations)."),
            .flag("builtin", "Check rlskit's built-in example schema with its tests."),
            .flag("allow-empty", "Pass a run that applied no migrations or tested nothing."),
            .flag(
                "no-inferred",
                "Do not attack RLS tables without declared intent (their intent inferred as 'rlskit init' drafts it)."),
            .option("tests", "PATH", "Access files, scenarios or pgTAP files to run (repeatable).", repeatable: true),
            .option("format", "FORMAT", "Combined result for CI: text (default), junit, json or sarif (the audit)."),
            .option(
                "output", "FILE", "Write the --format result to FILE (the text summary still goes to the terminal)."),
            .option("junit", "FILE", "Also write JUnit XML (tests and audit findings) to FILE."),
            .option("sarif", "FILE", "Also write the audit as SARIF 2.1.0 to FILE (code scanning)."),
            .option("json", "FILE", "Also write the combined result as JSON to FILE."),
            CIOutput.option,
            HTMLOutput.option,
            .flag("keep", "Leave the throwaway database running afterwards and print how to connect."),
            .flag(
                "watch",
                "Check again whenever a migration, seed, test, access file or config.toml changes (Ctrl-C stops)."),
            ProjectOptions.grants,
        ]
            + OptionSpec.harness(jobs: "Spread the checks over N connections (default 1; 2 with --watch).")
            + OptionSpec.audit)

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        if args.flag("watch") { return try CheckWatch.run(args, term) }
        return try once(args, term).code
    }

    /// One check: its exit code and, when it got that far, its report.
    /// With `kept`, on that server (`--watch`), which is left running.
    static func once(_ args: ParsedArguments, _ term: Terminal, kept: CheckWatch.Server? = nil) throws -> (
        code: ExitCode, report: ProjectCheck.Report
    ) {
        let format = try OutputFormat.parse(args, allowed: [.text, .junit, .json, .sarif]).rawValue
        var options = ProjectCheck.Options()
        options.harness = try HarnessGroup.options(args)
        // A watch waits on every run: two connections share the units (as `mutate` does).
        if kept != nil, args.value("jobs") == nil { options.harness.jobs = 2 }
        let output = try OutputTarget(args.value("output"))
        let ci = try CIOutput(args)
        let html = try HTMLOutput(args)
        let extraOutputs = try ["junit", "sarif", "json"].compactMap { f in
            try args.value(f).map { (format: f, target: try OutputTarget($0, option: f)) }
        }
        // A machine format on standard output keeps it clean: the human summary goes to stderr.
        let machineOnStdout = format != "text" && !output.isFile
        let tell: (String) -> Void = machineOnStdout ? { printNote($0) } : { say($0) }
        if args.flag("keep"), args.value("database-url") != nil || ConnectionString.environmentNamesDatabase() {
            printNote("note: --keep only applies to the throwaway database; the given database is left as it is anyway")
        }
        let projectOptions = try ProjectOptions(args)
        let auditGroup = try AuditGroup(args)
        (options.failOn, options.baseline) = (auditGroup.failOn, auditGroup.baseline)
        options.allowEmpty = args.flag("allow-empty")
        options.inferred = !args.flag("no-inferred")
        let source = try MigrationsOption.source(args)
        let suite = try tests(args.all("tests"), migrations: source)
        let input = ProjectCheck.Input(try projectOptions.given(migrations: source, tests: suite))
        var inputs = args.all("tests").isEmpty ? ["sql/tests", "supabase/tests"] : args.all("tests")
        if case .directory(let dir) = source { inputs.append(dir) }
        try OutputTarget.refuseOverlap(
            [("output", output.path), ("summary", ci.summary.path), ("html", html.path)]
                + extraOutputs.map { ($0.format, $0.target.path) },
            inputs: inputs + args.all("baseline"))
        let progress = Progress(term: term)

        progress.show("starting the database")
        let started = Date()
        let target = try kept?.target ?? DatabaseTarget.resolve(args) { _ in }
        defer { if kept == nil { target.stop() } }
        var database = ProjectCheck.Database(
            connection: target.connection, isThrowaway: target.isThrowaway,
            startMilliseconds: Int(Date().timeIntervalSince(started) * 1000))
        database.project = target.project
        database.kept = kept?.templates
        database.prepared = target.cluster?.isPrepared ?? false
        let report = try ProjectCheck.run(input, options: options, on: database) { progress.show($0) }
        progress.clear()

        // Details first (failures, coverage), the summary last where the eye lands.
        let tests = report.tests
        let audit = report.audit
        if !tests.outcomes.isEmpty {
            let detail = TestReportWriter.render(tests, format: .text, color: term.color && !machineOnStdout)
            if !tests.passed { tell(String(detail.dropLast())) } else { for n in tests.notes { tell(n) } }
        } else {
            // With no tests the attack's notes (what it could not attack) are still said.
            for n in tests.notes { tell(n) }
        }
        for p in report.problems { printError(p.description) }
        if !audit.findings.isEmpty { tell(String(audit.text(color: term.color && !machineOnStdout).dropLast())) }
        for line in CheckVerdict.untested(report) { tell(line) }
        for w in report.migrations.warnings { tell(w) }
        for s in report.settings { tell("  " + term.dim(s)) }
        for p in report.phases {
            let mark = p.ok ? term.green("✓") : term.red("✗")
            tell(
                "  \(mark) \(p.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(p.summary)  "
                    + term.dim("\(p.milliseconds) ms"))
        }
        let total = report.phases.reduce(0) { $0 + $1.milliseconds }
        tell(CheckVerdict.line(report, term: term) + " in " + String(format: "%.1f s", Double(total) / 1000))
        if let next = CheckVerdict.next(report, suite) { tell(term.dim(next)) }

        func rendered(_ format: String) -> String {
            switch format {
            case "junit": return TestReportWriter.render(report.testsWithAudit, format: .junit)
            case "sarif": return audit.sarif()
            default: return report.json()
            }
        }
        for extra in extraOutputs { try extra.target.write(rendered(extra.format)) }
        if format != "text" { try output.write(rendered(format)) }
        try html.write(
            command: "check", verdict: CheckVerdict.line(report, term: Terminal(color: false)),
            facts: report.phases.map { ($0.name, $0.summary) } + (report.grants.map { [("grants", "\($0)")] } ?? []),
            tests: tests, audit: audit,
            untested: report.untestedTables, on: target.connection)
        try ci.emit(
            markdown: CISummary.markdown(
                command: "check", verdict: CheckVerdict.line(report, term: Terminal(color: false)),
                phases: report.phases.map { .init(name: $0.name, ok: $0.ok, summary: $0.summary) },
                notes: CheckVerdict.untested(report), tests: tests, audit: audit),
            annotations: CISummary.annotations(tests: tests, audit: audit), toStderr: machineOnStdout)
        if args.flag("keep"), let cluster = target.cluster {
            let access = try cluster.shellAccess()
            let pid = cluster.detach()
            let env = access.passFile.map { "PGPASSFILE=\($0) " } ?? ""
            tell("kept the throwaway database; connect with: \(env)psql \"\(access.connection)\"")
            tell("stop it with: kill \(pid) && rm -rf \(cluster.directory)")
        }
        // Test hook: keeps the server up so tests can interrupt a running check.
        if let hold = ProcessInfo.processInfo.environment["RLSKIT_TEST_HOLD_SECONDS"].flatMap(Double.init) {
            Thread.sleep(forTimeInterval: hold)
        }
        if !report.problems.isEmpty { return (.usage, report) }
        return (report.passed ? .success : .checksFailed, report)
    }

    /// What to test: --tests, else sql/tests, else supabase/tests, else the built-in tests
    /// when the built-in schema is what was applied.
    static func tests(_ given: [String], migrations: MigrationSource) throws -> TestSuite {
        var paths = given
        if paths.isEmpty {
            paths = ["sql/tests", "supabase/tests"].filter { FileManager.default.fileExists(atPath: $0) }
            if paths.isEmpty, migrations == .builtIn { return try TestSuite.builtIn() }
        }
        return paths.isEmpty ? TestSuite() : try TestSuite.load(paths)
    }
}

/// A one-line "working on …" note on a terminal's stderr, replaced as phases go; nothing
/// when output is not a terminal (CI logs stay plain).
struct Progress {
    let enabled: Bool
    init(term: Terminal) { enabled = isatty(2) == 1 && term.color }
    func show(_ what: String) {
        guard enabled else { return }
        writeControl("\r\u{1B}[K")
        printErrRaw("… " + what)
    }
    func clear() {
        guard enabled else { return }
        writeControl("\r\u{1B}[K")
    }
}
