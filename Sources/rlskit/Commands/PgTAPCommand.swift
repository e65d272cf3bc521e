import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// Runs pgTAP files (e.g. supabase/tests) natively. `rlskit test` hands pgTAP paths here;
/// until then it is also the `pgtap` subcommand.
enum PgTAPRun {
    static let options: [OptionSpec] = [
        DatabaseTarget.option,
        .option("format", "FORMAT", "Report format: text (default), tap, junit or json."),
        .option("output", "FILE", "Write the report to FILE (a text summary still goes to standard output)."),
        .option(
            "jobs", "N",
            "Run the files before the first one that keeps work for later files over N connections (default 1)."),
        .option(
            "helpers", "SET",
            "tests.* helpers: basejump (default, as supabase-test-helpers 0.0.6) or api (as the data API impersonates)."
        ),
        .flag("print-helpers", "Print SQL that installs the tests.* helpers in use (e.g. for pg_prove) and exit."),
        ProjectOptions.grants,
    ]

    static let spec = CommandSpec(
        name: "pgtap",
        summary: "run pgTAP suites (supabase/tests) natively, supabase-test-helpers built in",
        positionals: "[PATH…]",
        maxPositionals: Int.max,
        details: """
            PATHs are pgTAP files or folders (searched recursively for *.sql and *.pg, run in name
            order); default supabase/tests. Files run statement by statement as psql sends them, each
            as in its own psql session: what a file keeps (outside its own BEGIN … ROLLBACK, or
            committed) is seen by the files after it, as under pg_prove, and the whole run is one
            transaction that is always rolled back. pgTAP is created in it (schema extensions) when
            the database lacks it, and the supabase-test-helpers functions (tests.*) are built in.
            psql's \\set, \\unset, \\i, \\ir, \\echo, \\qecho, \\warn and \\q work; \\pset, \\timing,
            \\x, \\t and \\a are ignored; other meta-commands stop the file from running.

            exit codes: 0 all passed, 1 a test failed, 2 bad paths or a file that cannot run,
                        3 cannot connect or the connection was lost.
            """,
        options: options)

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        try run(paths: args.positionals, args: args, term: term)
    }

    static func run(paths: [String], args: ParsedArguments, term: Terminal) throws -> ExitCode {
        let helpers = try helperSet(args)
        if args.flag("print-helpers") {
            writeOut(SupabaseTestHelpers.installSQL(helpers), as: .document)
            return .success
        }
        let format = try OutputFormat.parse(args, allowed: [.text, .tap, .junit, .json]).testReport
        let jobs = try jobCount(args)
        let projectOptions = try ProjectOptions(args)
        var paths = paths
        if paths.isEmpty {
            guard FileManager.default.fileExists(atPath: "supabase/tests") else {
                throw UsageError(message: "no PATH given and no supabase/tests folder here", usage: spec.usage)
            }
            paths = ["supabase/tests"]
        }
        let files = try PgTAPRunner.discover(paths)
        let outputTarget = try OutputTarget(args.value("output"))
        // Files pulled in with \i are inputs too.
        let included = Set(files.flatMap { f in PsqlScript.inputs(path: f.path, display: f.display) })
        try OutputTarget.refuseOverlap([("output", outputTarget.path)], inputs: paths + included.sorted())

        let target = try DatabaseTarget.resolve(args) { printNote($0) }
        defer { target.stop() }
        let project = try projectOptions.resolve(migrations: .projectSource())
        let regime = try target.provisionIfThrowaway(project) { printNote($0) }
        var options = HarnessOptions()
        options.jobs = jobs
        options.pgtapConnection = target.project
        var suite = TestSuite(pgtap: files)
        suite.pgtapHelpers = helpers
        let result = try PolicyTests.run(
            suite, options: options, on: target.connection, ownsDatabase: target.isThrowaway)
        let report = regime.map { result.report.naming($0) } ?? result.report
        if outputTarget.isFile {
            try outputTarget.write(
                TestReportWriter.render(report, format: format), as: format == .text ? .text : .document)
            writeOut(TestReportWriter.render(report, format: .text, color: term.color))
        } else {
            writeOut(
                TestReportWriter.render(report, format: format, color: term.color && format == .text),
                as: format == .text ? .text : .document)
        }
        for p in result.problems { printError(p.description) }
        if !result.problems.isEmpty { return .usage }
        return report.passed ? .success : .checksFailed
    }

    static func helperSet(_ args: ParsedArguments) throws -> PgTAPHelperSet {
        guard let v = args.value("helpers") else { return .basejump }
        guard let f = PgTAPHelperSet(rawValue: v) else {
            throw UsageError(message: "unknown --helpers '\(v)' (expected basejump or api)", usage: spec.usage)
        }
        return f
    }

    static func jobCount(_ args: ParsedArguments) throws -> Int {
        guard let v = args.value("jobs") else { return 1 }
        guard let n = Int(v), (1...64).contains(n) else {
            throw UsageError(message: "--jobs needs a number from 1 to 64, not '\(v)'", usage: spec.usage)
        }
        return n
    }
}
