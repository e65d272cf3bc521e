import Foundation
import Postgres
import RLSKit
import Synchronization

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
        everything back. On a throwaway server, sql/compat and sql/migrations are applied first.
        """,
        options: [
            DatabaseTarget.repeatableOption,
            DatabaseTarget.manyOption,
            .option("format", "FORMAT", "Output: text (default), tap, junit or json."),
            .option("output", "FILE", "Write the report to FILE instead of standard output."),
            .option("jobs", "N", "Spread the checks over N connections (default 1)."),
            .flag("strict", "Fail on RLS tables without declared intent."),
            .flag("allow-untested", "Skip, instead of fail, declared tables and buckets that cannot be tested."),
            .flag("allow-side-effects", "Run even where triggers could make real network calls (http, pg_net)."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let format = try args.value("format").map { f -> TestReportFormat in
            guard let v = TestReportFormat(rawValue: f) else { throw ConfigurationError("--format must be text, tap, junit or json (got '\(f)')") }
            return v
        } ?? .text
        let options = try harnessOptions(args)
        var paths = args.positionals
        if paths.isEmpty {
            paths = ["sql/tests", "supabase/tests"].filter { FileManager.default.fileExists(atPath: $0) }
            guard !paths.isEmpty else {
                throw ConfigurationError("no tests given and no sql/tests folder here: pass PATHs to access files (*.rls), scenarios (*.scenario) or pgTAP files (*.sql)")
            }
        }
        let (ours, pgtap) = try route(paths)
        let input: HarnessInput
        do { input = try HarnessLoader.load(ours) } catch let e as InputError { throw ConfigurationError(e.description) }
        let pgtapFiles = pgtap.isEmpty ? [] : try PgTAPRunner.discover(pgtap)
        guard !input.isEmpty || !pgtapFiles.isEmpty else {
            throw ConfigurationError("no access files (*.rls), scenarios (*.scenario) or pgTAP files under \(paths.joined(separator: ", "))")
        }
        let output = try OutputTarget(args.value("output"))   // fail before the run, not after it
        try OutputTarget.refuseOverlap([("output", output.path)], inputs: paths + args.all("database-urls"))

        if let many = try DatabaseTarget.resolveMany(args) {
            return try runMany(many, input: input, pgtap: pgtapFiles, options: options, format: format, output: output, term: term)
        }
        let target = try DatabaseTarget.resolve(args) { printNote(term.dim($0)) }
        defer { target.stop() }
        try target.provisionIfThrowaway { printNote(term.dim($0)) }
        let (report, malformed) = try execute(on: target, input: input, pgtap: pgtapFiles, options: options)
        try write(report, format: format, output: output, term: term)
        if malformed { return .usage }
        return report.passed ? .success : .checksFailed
    }

    /// --jobs, --strict, --allow-untested and --allow-side-effects (shared with check).
    static func harnessOptions(_ args: ParsedArguments) throws -> HarnessOptions {
        var options = HarnessOptions()
        if let j = args.value("jobs") {
            guard let n = Int(j), n >= 1, n <= 64 else { throw ConfigurationError("--jobs must be a number from 1 to 64 (got '\(j)')") }
            options.jobs = n
        }
        options.strict = args.flag("strict")
        options.allowUntested = args.flag("allow-untested")
        options.allowSideEffects = args.flag("allow-side-effects")
        return options
    }

    /// Runs the access files, scenarios and pgTAP files on one database, leaving no trace.
    static func execute(on target: DatabaseTarget, input: HarnessInput, pgtap: [(path: String, display: String)],
                        options: HarnessOptions) throws -> (report: TestReport, malformed: Bool) {
        var report = TestReport()
        var malformed = false
        var sequences: [SequenceAdvance] = []
        do { sequences = try target.leavingNoTrace {
            if !input.isEmpty {
                do { report = try Harness.run(input, on: target.connection, options: options) } catch let e as InputError {
                    throw ConfigurationError(e.description)
                }
            }
            if !pgtap.isEmpty {
                let r = try PgTAPRunner(connection: target.connection, jobs: options.jobs).run(pgtap)
                report.outcomes += r.report.outcomes
                report.notes += r.report.notes
                malformed = r.hasMalformed
                for f in r.files { for p in f.malformed { printError(p.description) } }
            }
        }.sequences } catch var e as PostgresError where e.isConnectionFailure && !e.message.hasPrefix("cannot connect") {
            e.message = "lost the connection to \(target.connection.description) while running the tests: " + e.message
            throw e
        }
        report.sequences = sequences
        if let note = SequenceGuard.note(sequences) { report.notes.append(note) }
        return (report, malformed)
    }

    static func write(_ report: TestReport, format: TestReportFormat, output: OutputTarget, term: Terminal) throws {
        if output.isFile {
            try output.write(TestReportWriter.render(report, format: format))
            print(TestReportWriter.render(report, format: .text, color: term.color), terminator: "")
        } else {
            print(TestReportWriter.render(report, format: format, color: term.color && format == .text), terminator: "")
        }
    }

    /// Several databases at once, one worker each: a summary line per database, one combined
    /// report (suites prefixed with the database), the worst exit code.
    static func runMany(_ targets: [DatabaseTarget], input: HarnessInput, pgtap: [(path: String, display: String)],
                        options: HarnessOptions, format: TestReportFormat, output: OutputTarget, term: Terminal) throws -> ExitCode {
        let results = Mutex<[Int: Result<(report: TestReport, malformed: Bool), Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: targets.count) { i in
            let r = Result { try execute(on: targets[i], input: input, pgtap: pgtap, options: options) }
            results.withLock { $0[i] = r }
        }
        var combined = TestReport()
        var code = ExitCode.success
        let print: (String) -> Void = format != .text && !output.isFile ? { printNote($0) } : { Swift.print($0) }
        // The worst outcome wins, whatever the order of the databases: 3 > 2 > 1 > 0.
        func worse(_ c: ExitCode) { if c.rawValue > code.rawValue { code = c } }
        for (i, t) in targets.enumerated() {
            let name = t.connection.description
            switch results.withLock({ $0[i] })! {
            case .success(let r):
                let line = "\(r.report.count(.passed)) passed, \(r.report.failed) failed"
                print((r.report.passed ? term.green("✓") : term.red("✗")) + " \(name): \(line)")
                for o in r.report.outcomes where o.isFailure { print("    ✗ \(o.suite) " + (o.actor.map { "[\($0)] " } ?? "") + o.name) }
                combined.outcomes += r.report.outcomes.map { var o = $0; o.suite = name + " " + o.suite; return o }
                combined.sequences += r.report.sequences.map { var s = $0; s.sequence = name + " " + s.sequence; return s }
                if let note = SequenceGuard.note(r.report.sequences) { print("    " + note) }
                worse(r.malformed ? .usage : r.report.passed ? .success : .checksFailed)
            case .failure(let e):
                let message = ((e as? PostgresError)?.message ?? "\(e)").replacingOccurrences(of: "cannot connect to \(name): ", with: "cannot connect: ")
                print(term.red("✗") + " \(name): " + message)
                worse(e is ConfigurationError ? .usage : .server)
            }
        }
        print("\(targets.count) databases: \(combined.count(.passed)) checks passed, \(combined.failed) failed")
        if output.isFile || format != .text { try output.write(TestReportWriter.render(combined, format: format)) }
        return code
    }

    /// Splits PATHs between the harness (*.rls, *.scenario) and the pgTAP runner (*.sql, *.pg).
    static func route(_ paths: [String]) throws -> (ours: [String], pgtap: [String]) {
        var ours: [String] = [], pgtap: [String] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else { throw ConfigurationError("\(p): no such file or folder") }
            let ext = (p as NSString).pathExtension.lowercased()
            if !isDir.boolValue {
                if HarnessLoader.extensions.contains(ext) { ours.append(p) }
                else if ["sql", "pg"].contains(ext) { pgtap.append(p) }
                else { throw ConfigurationError("\(p): not a test file: use *.rls, *.scenario, or pgTAP *.sql / *.pg") }
                continue
            }
            let exts = Set((fm.enumerator(atPath: p)?.allObjects as? [String] ?? []).map { ($0 as NSString).pathExtension.lowercased() })
            if !exts.isDisjoint(with: HarnessLoader.extensions) { ours.append(p) }
            if exts.contains("sql") || exts.contains("pg") { pgtap.append(p) }
        }
        return (ours, pgtap)
    }
}
