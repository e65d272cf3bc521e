import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `rlskit mutate`: would the tests notice if a policy were wrong?
enum MutateCommand {
    static let spec = CommandSpec(
        name: "mutate",
        summary: "break the policies one at a time and report which breakages the tests miss",
        details: """
            Provisions a throwaway PostgreSQL as check does (stand-in, migrations, seeds), runs the
            tests once, then makes small wrong versions of the security surface one at a time (a
            policy's USING or WITH CHECK replaced by true, weakened or removed, a conjunct dropped,
            a disjunct added, the caller's comparison inverted or moved to another column, roles
            widened, a restrictive policy or RLS removed, a grant widened to anon or a column
            grant to the whole table, a definer function's caller check or a storage folder
            check dropped), runs the tests against each and undoes it. A mutant no test fails
            on survives: it is listed with the migration line that made the policy and a test
            that would kill it (an access-file block and pgTAP lines). The score is killed /
            non-equivalent mutants. Exit 1 when the score is below --min-score or the tests fail
            before any mutant.
            """,
        options: [
            .option(
                "dir", "DIR", "Migrations to apply (default: sql/migrations, else supabase/migrations)."),
            .flag("builtin", "Mutate rlskit's built-in example schema, tested by its own tests."),
            .option("tests", "PATH", "Access files, scenarios or pgTAP files to run (repeatable).", repeatable: true),
            .option("min-score", "N", "Fail (exit 1) when the score is below N percent (default: report only)."),
            .option("json", "FILE", "Write the score and every mutant as JSON to FILE."),
            CIOutput.option,
            .option("html", "FILE", "Write a self-contained HTML report to FILE, survivors first."),
            ProjectOptions.grants,
            ProjectOptions.exposedSchemas,
        ]
            + OptionSpec.harness(jobs: "Spread each mutant's checks over N connections (default 1)."))

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let minScore = try args.value("min-score").map { v -> Double in
            guard let n = Double(v), n >= 0, n <= 100 else {
                throw ConfigurationError("--min-score must be a number from 0 to 100 (got '\(v)')")
            }
            return n
        }
        var options = ProjectCheck.Options()
        options.harness = try HarnessGroup.options(args)
        // One connection per mutant's run: it stops at the first failing unit, and two workers'
        // connections cost more than they save (bench/mutate.sh).
        if args.value("jobs") == nil { options.harness.jobs = 1 }
        let json = try OutputTarget(args.value("json"), option: "json")
        let html = try OutputTarget(args.value("html"), option: "html")
        let ci = try CIOutput(args)
        let source = try MigrationsOption.source(args)
        let projectOptions = try ProjectOptions(args)
        let input = ProjectCheck.Input(
            try projectOptions.given(
                migrations: source, tests: try CheckCommand.tests(args.all("tests"), migrations: source)))
        var inputs = args.all("tests").isEmpty ? ["sql/tests", "supabase/tests"] : args.all("tests")
        if case .directory(let dir) = source { inputs.append(dir) }
        try OutputTarget.refuseOverlap(
            [("json", json.path), ("html", html.path), ("summary", ci.summary.path)], inputs: inputs)
        let progress = Progress(term: term)
        progress.show("starting the database")
        let target = try DatabaseTarget.resolve(args) { _ in }
        defer { target.stop() }
        var database = ProjectCheck.Database(connection: target.connection, isThrowaway: target.isThrowaway)
        database.project = target.project
        let report: MutationReport
        do {
            report = try ProjectMutate.run(input, options: options, on: database, progress: { progress.show($0) }) {
                progress.show("mutants \($0.done)/\($0.total): \($0.killed) killed, \($0.survived) surviving")
            }
        } catch let e as TestsFailBeforeMutation {
            progress.clear()
            printError(e.description)
            return .checksFailed
        }
        progress.clear()
        writeOut(report.text())
        let below = minScore.map { report.score.percent < $0 } ?? false
        let verdict =
            (below ? term.red("✗") : term.green("✓")) + " mutate: " + report.verdict
            + (minScore.map { below ? " (below --min-score \(Self.number($0)))" : " (--min-score \(Self.number($0)))" }
                ?? "")
            + " in " + String(format: "%.1f s", Double(report.milliseconds) / 1000)
        say(verdict)
        if json.isFile { try json.write(report.json()) }
        if html.isFile { try html.write(report.html()) }
        try ci.emit(markdown: report.markdown(), annotations: report.annotations(), toStderr: false)
        return below ? .checksFailed : .success
    }

    static func number(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}
