import Foundation
import Postgres
@_spi(CLI) import RLSKit

enum TestCommand {
    static let spec = CommandSpec(
        name: "test",
        summary: "impersonate API callers and verify own-row access",
        positionals: "[PATH…]",
        maxPositionals: 1000,
        details: """
            Reads access files (*.rls: who may read and write each table and bucket) and scenarios
            (*.scenario) from PATHs, folders searched recursively (default: sql/tests). Generates the
            own-row matrix from the declared intent and the live catalog, runs every check as anon,
            signed-in users and service_role exactly as Supabase's API servers do, and rolls
            everything back. On a throwaway server, the Supabase stand-in and the project's sql/migrations
            (else supabase/migrations) are applied first; outside a project, the stand-in only.
            """,
        options: [
            DatabaseTarget.repeatableOption,
            DatabaseTarget.manyOption,
            .option("format", "FORMAT", "Output: text (default), tap, junit or json."),
            OptionSpec.output,
            ProjectOptions.grants,
            ProjectOptions.exposedSchemas,
            CIOutput.option,
            HTMLOutput.option,
            .flag(
                "inferred",
                "Also attack RLS tables no access file declares, their intent inferred as 'rlskit init' drafts it."),
        ] + OptionSpec.harness)

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let format = try OutputFormat.parse(args, allowed: [.text, .tap, .junit, .json]).testReport
        let base = try HarnessGroup.options(args)
        let projectOptions = try ProjectOptions(args)
        let inferred = args.flag("inferred")
        var paths = args.positionals
        if paths.isEmpty {
            paths = ["sql/tests", "supabase/tests"].filter { FileManager.default.fileExists(atPath: $0) }
            guard !paths.isEmpty || inferred else {
                throw ConfigurationError(
                    "no tests given and no sql/tests folder here: pass PATHs to access files (*.rls), scenarios (*.scenario) or pgTAP files (*.sql)"
                )
            }
        }
        let suite = paths.isEmpty ? TestSuite() : try TestSuite.load(paths)
        guard !suite.isEmpty || inferred else {
            throw ConfigurationError(
                "no access files (*.rls), scenarios (*.scenario) or pgTAP files under \(paths.joined(separator: ", "))")
        }
        let project = try projectOptions.resolve(migrations: .projectSource(), tests: suite)
        let output = try OutputTarget(args.value("output"))  // fail before the run, not after it
        let ci = try CIOutput(args)
        let html = try HTMLOutput(args)
        // Files that pgTAP suites pull in with \i are inputs too.
        let included = Set(suite.pgtap.flatMap { PsqlScript.inputs(path: $0.path, display: $0.display) })
        try OutputTarget.refuseOverlap(
            [("output", output.path), ("summary", ci.summary.path), ("html", html.path)],
            inputs: paths + args.all("database-urls") + included.sorted())

        if let many = try DatabaseTarget.resolveMany(args) {
            if inferred {
                throw ConfigurationError("--inferred runs on one database: give --database-url, not several")
            }
            let files = try PerDatabaseOutput.Files(
                many, html: html, ci: ci, inputs: paths + args.all("database-urls") + included.sorted())
            return try runMany(
                many, project: project, base: base, format: format, output: output, term: term, ci: ci, files: files)
        }
        let target = try DatabaseTarget.resolve(args) { printNote(term.dim($0)) }
        defer { target.stop() }
        let regime = try target.provisionIfThrowaway(project) { printNote(term.dim($0)) }
        let exposure = try project.exposure(on: try target.connect())
        var onTarget = project.harness(base, exposure: exposure)
        onTarget.pgtapConnection = target.project
        var r = try PolicyTests.run(suite, options: onTarget, on: target.connection, ownsDatabase: target.isThrowaway)
        if inferred {
            let attack = try InferredAttack.run(
                schemas: exposure.names, declared: suite.declaredBlocks, options: onTarget, on: target.connection,
                ownsDatabase: target.isThrowaway)
            r.report.outcomes += attack.outcomes
            r.report.notes += attack.notes
            r.report.notes.append(
                "inferred intent: \(attack.attacked) without declared intent attacked, \(attack.outcomes.count) hole\(attack.outcomes.count == 1 ? "" : "s") proven"
            )
            r.report.sequences = SequenceAdvance.merged(r.report.sequences, attack.sequences)
        }
        let report = regime.map { r.report.naming($0) } ?? r.report
        // The settings a run used, above its report (a file that stopped the run prints none).
        if format == .text {
            for s in project.settingLines(exposure: exposure) { writeOut(term.dim(s) + "\n") }
        }
        try write(report, format: format, output: output, term: term)
        var facts = [("database", target.isThrowaway ? "throwaway PostgreSQL" : target.connection.label)]
        if let regime { facts.append(("grants", "\(regime)")) }
        try html.write(
            command: "test", verdict: report.passed && r.problems.isEmpty ? "passed" : "failed",
            facts: facts, tests: report, audit: nil, on: target.connection)
        try ci.emit(
            markdown: CISummary.markdown(
                command: "test", verdict: report.passed && r.problems.isEmpty ? "passed" : "failed", tests: report,
                audit: nil),
            annotations: CISummary.annotations(tests: report, audit: nil), toStderr: format != .text && !output.isFile
        )
        for p in r.problems { printError(p.description) }
        if !r.problems.isEmpty { return .usage }
        return r.report.passed ? .success : .checksFailed
    }

    static func write(_ report: TestReport, format: TestReportFormat, output: OutputTarget, term: Terminal) throws {
        if output.isFile {
            try output.write(TestReportWriter.render(report, format: format), as: format == .text ? .text : .document)
            writeOut(TestReportWriter.render(report, format: .text, color: term.color))
        } else {
            writeOut(
                TestReportWriter.render(report, format: format, color: term.color && format == .text),
                as: format == .text ? .text : .document)
        }
    }

    /// Several databases at once, one worker each: a summary line per database, one combined
    /// report (suites prefixed with the database), the worst exit code.
    static func runMany(
        _ targets: [DatabaseTarget], project: Project, base: HarnessOptions, format: TestReportFormat,
        output: OutputTarget, term: Terminal, ci: CIOutput, files: PerDatabaseOutput.Files
    ) throws -> ExitCode {
        let results = ManyDatabases.run(targets) { t in
            // Each database answers pgrst.db_schemas for itself.
            let conn = try t.connect()
            defer { conn.close() }
            let options = project.harness(base, exposure: try project.exposure(on: conn))
            return try PolicyTests.run(project.tests, options: options, on: t.connection, ownsDatabase: t.isThrowaway)
        }
        var combined = TestReport()
        var codes: [ExitCode] = []
        let emit: (String) -> Void = format != .text && !output.isFile ? { printNote($0) } : { say($0) }
        for (i, (t, result)) in zip(targets, results).enumerated() {
            let name = t.connection.label
            let shown = TextEscape.line(name)
            switch result {
            case .success(let r):
                let verdict = r.report.passed && r.problems.isEmpty ? "passed" : "failed"
                try files.html[i]?.write(
                    command: "test", verdict: verdict, facts: [("database", name)], tests: r.report, audit: nil,
                    on: t.connection)
                try ci.emit(
                    markdown: CISummary.markdown(
                        command: "test", on: name, verdict: verdict, tests: r.report, audit: nil),
                    to: files.summary[i])
                let line = "\(r.report.count(.passed)) passed, \(r.report.failed) failed"
                emit((r.report.passed ? term.green("✓") : term.red("✗")) + " \(shown): \(line)")
                for o in r.report.outcomes where o.isFailure {
                    emit("    ✗ " + TextEscape.line("\(o.suite) " + (o.actor.map { "[\($0)] " } ?? "") + o.name))
                }
                for p in r.problems { emit("    ✗ " + TextEscape.line(p.description)) }
                combined.outcomes += r.report.outcomes.map {
                    var o = $0
                    o.suite = name + " " + o.suite
                    return o
                }
                combined.sequences += r.report.sequences.map {
                    var s = $0
                    s.sequence = name + " " + s.sequence
                    return s
                }
                if let note = SequenceGuard.note(r.report.sequences) { emit("    " + note) }
                codes.append(!r.problems.isEmpty ? .usage : r.report.passed ? .success : .checksFailed)
            case .failure(let e):
                let (code, line) = ManyDatabases.failure(e, database: name)
                emit(term.red("✗") + " " + TextEscape.line(line))
                codes.append(code)
            }
        }
        emit("\(targets.count) databases: \(combined.count(.passed)) checks passed, \(combined.failed) failed")
        if output.isFile || format != .text {
            try output.write(TestReportWriter.render(combined, format: format), as: format == .text ? .text : .document)
        }
        return ExitCode.worst(codes)
    }
}
