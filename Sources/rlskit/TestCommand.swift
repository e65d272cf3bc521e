import Foundation
import Postgres
import RLSKit

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
            DatabaseTarget.option,
            .option("format", "FORMAT", "Output: text (default), tap, junit or json."),
            .option("output", "FILE", "Write the report to FILE instead of standard output."),
            .option("jobs", "N", "Spread the checks over N connections (default 1)."),
            .flag("strict", "Fail on RLS tables without declared intent and on tables that cannot be tested."),
            .flag("allow-side-effects", "Run even where triggers could make real network calls (http, pg_net)."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let format = try args.value("format").map { f -> TestReportFormat in
            guard let v = TestReportFormat(rawValue: f) else { throw ConfigurationError("--format must be text, tap, junit or json (got '\(f)')") }
            return v
        } ?? .text
        var options = HarnessOptions()
        if let j = args.value("jobs") {
            guard let n = Int(j), n >= 1, n <= 64 else { throw ConfigurationError("--jobs must be a number from 1 to 64 (got '\(j)')") }
            options.jobs = n
        }
        options.strict = args.flag("strict")
        options.allowSideEffects = args.flag("allow-side-effects")
        var paths = args.positionals
        if paths.isEmpty {
            guard FileManager.default.fileExists(atPath: "sql/tests") else {
                throw ConfigurationError("no tests given and no sql/tests folder here: pass PATHs to access files (*.rls) or scenarios (*.scenario)")
            }
            paths = ["sql/tests"]
        }
        let input: HarnessInput
        do { input = try HarnessLoader.load(paths) } catch let e as InputError { throw ConfigurationError(e.description) }
        guard !input.isEmpty else { throw ConfigurationError("no access files (*.rls) or scenarios (*.scenario) under \(paths.joined(separator: ", "))") }
        if let out = args.value("output") {   // fail before the run, not after it
            guard FileManager.default.createFile(atPath: out, contents: nil) else { throw ConfigurationError("cannot write --output \(out)") }
        }

        let target = try DatabaseTarget.resolve(args) { FileHandle.standardError.write(Data((term.dim($0) + "\n").utf8)) }
        defer { target.stop() }
        if target.isThrowaway { try LocalSchema.apply(target.connect(), root: "sql") }
        let report: TestReport
        do { report = try Harness.run(input, on: target.connection, options: options) } catch let e as InputError {
            throw ConfigurationError(e.description)
        }
        let text = TestReportWriter.render(report, format: format, color: format == .text && term.color && args.value("output") == nil)
        if let out = args.value("output") {
            guard FileManager.default.createFile(atPath: out, contents: Data(text.utf8)) else { throw ConfigurationError("cannot write --output \(out)") }
            print("\(report.count(.passed)) passed, \(report.failed) failed — report in \(out)")
        } else {
            print(text, terminator: "")
        }
        return report.passed ? .success : .checksFailed
    }
}

/// Applies the schema in `root` (compat, then migrations) to a throwaway database, file by file.
/// Stand-in until the shared provisioner lands; keep it this small.
enum LocalSchema {
    static func apply(_ conn: PostgresConnection, root: String) throws {
        for dir in ["compat", "migrations"] {
            let path = root + "/" + dir
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".sql") }.sorted()
            for f in files {
                guard let text = try? String(contentsOfFile: path + "/" + f, encoding: .utf8) else { throw ConfigurationError("\(path)/\(f): cannot read") }
                do { _ = try conn.runScript(text) } catch { throw ConfigurationError("\(path)/\(f): \(error.error.description)") }
            }
        }
    }
}
