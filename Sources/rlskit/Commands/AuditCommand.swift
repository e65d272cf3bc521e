import Foundation
import Postgres
@_spi(CLI) import RLSKit

enum AuditCommand {
    static let spec = CommandSpec(
        name: "audit",
        summary: "lint the live catalog's security surface",
        details: """
            Reads the catalog of the database in one read-only transaction and reports findings
            (ERROR, WARN, INFO). Exposed schemas: --exposed-schemas, else [api] schemas of the
            project's supabase/config.toml (in this folder) with the access files' expose lines,
            else the data API's pgrst.db_schemas setting, else public; storage policies are
            always audited.
            Exit 1 when a finding is at or above --fail-on (default error).
            Baseline file: one '<fingerprint> # reason' per line.
            """,
        options: [DatabaseTarget.existingRepeatableOption, DatabaseTarget.manyOption] + OptionSpec.audit + [
            .option("format", "FORMAT", "text (default), json, sarif or github."),
            OptionSpec.output,
            CIOutput.option,
            HTMLOutput.option,
            .option("explain", "LINT", "Print a lint's documentation and examples, then exit (no database needed)."),
            .flag("list", "List every lint, then exit."),
            .flag("print-queries", "Print the catalog queries as a psql script, then exit (for benchmarks)."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        if let name = args.value("explain") {
            guard let lint = LintRegistry.named(name) else {
                throw ConfigurationError("unknown lint '\(name)'; 'rlskit audit --list' shows them all")
            }
            writeOut(lint.explanation, as: .document)
            return .success
        }
        if args.flag("list") {
            for l in LintRegistry.all {
                say(
                    "\(l.id)  \(l.level.label.padding(toLength: 5, withPad: " ", startingAt: 0))  \(l.name.padding(toLength: 52, withPad: " ", startingAt: 0))\(l.title)"
                )
            }
            return .success
        }
        // Without the option, the project's config.toml says what the Data API serves.
        let audit = try ProjectOptions(args).resolve(migrations: .projectSource()).audit
        if args.flag("print-queries") {
            writeOut(Auditor.script(exposedSchemas: audit.exposed?.names ?? ["public"]), as: .document)
            return .success
        }
        let format = try OutputFormat.parse(args, allowed: [.text, .json, .sarif, .github]).rawValue
        let group = try AuditGroup(args)
        let (failOn, baseline) = (group.failOn, group.baseline)
        let output = try OutputTarget(args.value("output"))
        let ci = try CIOutput(args)
        let html = try HTMLOutput(args)
        try OutputTarget.refuseOverlap(
            [("output", output.path), ("summary", ci.summary.path), ("html", html.path)],
            inputs: args.all("baseline") + args.all("database-urls"))
        if let many = try DatabaseTarget.resolveMany(args) {
            let files = try PerDatabaseOutput.Files(
                many, html: html, ci: ci, inputs: args.all("baseline") + args.all("database-urls"))
            return try runMany(
                many, audit: audit, baseline: baseline, failOn: failOn, format: format,
                output: output, term: term, ci: ci, files: files)
        }
        try DatabaseTarget.requireGiven(args, command: "audit")

        let target = try DatabaseTarget.resolve(args) { _ in }
        defer { target.stop() }
        // A read-only audit proves nothing: its ERRORs say so and keep their level.
        let report = AuditReport(
            result: try Auditor.run(options: audit, on: target.connection).markedReadOnly(),
            baseline: baseline)
        switch format {
        case "json": try output.write(report.json())
        case "sarif": try output.write(report.sarif())
        case "github": try output.write(report.github(), as: .annotations)
        default: try output.write(report.text(color: !output.isFile && term.color), as: .text)
        }
        let failed = report.fails(at: failOn) || !report.result.failedLints.isEmpty
        try html.write(
            command: "audit", verdict: failed ? "failed" : "passed",
            facts: [("database", target.connection.label), ("exposed schemas", report.schemasLine)],
            tests: TestReport(), audit: report, on: target.connection)
        try ci.emit(
            markdown: CISummary.markdown(
                command: "audit", verdict: failed ? "failed" : "passed", tests: nil, audit: report),
            annotations: format == "github" ? "" : CISummary.annotations(tests: nil, audit: report),
            toStderr: format != "text" && !output.isFile)
        if output.isFile {
            say(report.schemasLine)
            say(report.summaryLine + " — report written to \(output.path!)")
        }
        if !report.result.failedLints.isEmpty {
            // Never pass silently on a partial audit: the server failed some statements.
            let names = report.result.failedLints.keys.sorted()
            printError(
                "\(names.count) lint\(names.count == 1 ? "" : "s") could not run (\(names.joined(separator: ", "))): \(report.result.failedLints[names[0]]!)"
            )
            return .server
        }
        return report.fails(at: failOn) ? .checksFailed : .success
    }

    /// Several databases in parallel: a summary line each, the reports one after another.
    static func runMany(
        _ targets: [DatabaseTarget], audit: AuditOptions, baseline: Baseline, failOn: FindingLevel,
        format: String, output: OutputTarget, term: Terminal, ci: CIOutput, files: PerDatabaseOutput.Files
    ) throws -> ExitCode {
        let results = ManyDatabases.run(targets) { t in
            AuditReport(
                result: try Auditor.run(options: audit, on: t.connection).markedReadOnly(),
                baseline: baseline)
        }
        var codes: [ExitCode] = []
        var documents: [String] = []
        // With a machine format on stdout, the per-database lines go to stderr.
        let emit: (String) -> Void = format != "text" && !output.isFile ? { printNote($0) } : { say($0) }
        for (i, (t, result)) in zip(targets, results).enumerated() {
            let name = t.connection.label
            switch result {
            case .success(let report):
                let failed = report.fails(at: failOn) || !report.result.failedLints.isEmpty
                try files.html[i]?.write(
                    command: "audit", verdict: failed ? "failed" : "passed",
                    facts: [("database", name), ("exposed schemas", report.schemasLine)], tests: TestReport(),
                    audit: report, on: t.connection)
                try ci.emit(
                    markdown: CISummary.markdown(
                        command: "audit", on: name, verdict: failed ? "failed" : "passed", tests: nil, audit: report),
                    to: files.summary[i])
                emit((failed ? term.red("✗") : term.green("✓")) + " \(TextEscape.line(name)): " + report.summaryLine)
                codes.append(!report.result.failedLints.isEmpty ? .server : failed ? .checksFailed : .success)
                switch format {
                case "json": documents.append(report.json())
                case "sarif": documents.append(report.sarif())
                case "github": documents.append(report.github())
                default:
                    documents.append("== \(TextEscape.line(name))\n" + report.text(color: !output.isFile && term.color))
                }
            case .failure(let e):
                let (code, line) = ManyDatabases.failure(e, database: name)
                emit(term.red("✗") + " " + TextEscape.line(line))
                codes.append(code)
            }
        }
        // JSON and SARIF stay one document: an array of reports, or one SARIF log with a run per database.
        switch format {
        case "json":
            try output.write(
                "[\n" + documents.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ",\n")
                    + "\n]\n")
        case "sarif": try output.write(mergeSARIF(documents))
        default: try output.write(documents.joined(), as: format == "github" ? .annotations : .text)
        }
        return ExitCode.worst(codes)
    }

    /// One SARIF log whose runs are every database's run.
    static func mergeSARIF(_ logs: [String]) -> String {
        let parsed = logs.compactMap { try? JSON(parsing: $0) }
        guard case .object(var pairs)? = parsed.first else { return "{}\n" }
        let runs = parsed.flatMap { log -> [JSON] in if case .array(let r)? = log["runs"] { r } else { [] } }
        pairs = pairs.map { $0.0 == "runs" ? ("runs", .array(runs)) : $0 }
        return JSON.object(pairs).rendered() + "\n"
    }

}
