import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `rlskit check --watch`: check, then check again whenever a project file changes, leading
/// with what changed since the run before (newly failing checks first). One throwaway server is
/// kept for the whole watch: each run clones its `postgres` from a template database holding the
/// migrations up to the first changed file (KeptServer); a run that changed the cluster beyond
/// what can be put back gets a new server. Ctrl-C stops and removes it, as always.
enum CheckWatch {
    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        if args.value("database-url") != nil || ConnectionString.environmentNamesDatabase() {
            throw ConfigurationError(
                "--watch runs on a throwaway server: remove --database-url (and DATABASE_URL or PGHOST)")
        }
        if args.flag("keep") { throw ConfigurationError("--watch and --keep cannot go together: give one") }
        if args.value("format").map({ $0 != "text" }) ?? false, args.value("output") == nil {
            throw ConfigurationError("--watch prints the summary on the terminal: give --output FILE for --format")
        }
        var watch = FileWatch(paths(args))
        guard !watch.last.isEmpty else {
            throw ConfigurationError(
                "nothing to watch: no migrations, tests or supabase/ folder here (give --dir or --tests)")
        }
        var previous: Snapshot?
        var round = 1
        var server: Server?
        // The libraries preloaded when the server could not be kept (pg_cron): nil while it can be.
        var unkept: [String]?
        defer { server?.target.stop() }
        while true {
            previous = runOnce(args, term, previous: previous, server: &server, unkept: &unkept) ?? previous
            say(term.dim("watching \(watch.last.count) files (Ctrl-C to stop)"))
            _ = flushOutput()
            // While the developer reads and edits: the next run's database, made ready.
            server?.templates.prepareNext()
            let changed = watch.next()
            round += 1
            say("")
            say("── run \(round): " + summary(changed))
        }
    }

    static func names(_ libraries: [String]) -> String {
        libraries.isEmpty ? "no library" : libraries.joined(separator: ", ")
    }

    /// The outcomes a run ended with, to compare the next run with.
    struct Snapshot {
        var checks: [String: Bool] = [:]
        var findings: Set<String> = []
    }

    /// The kept server and its template databases.
    struct Server {
        var target: DatabaseTarget
        var templates: KeptServer
        /// What the server preloads: fixed while it runs, so migrations that need another set
        /// (a new `create extension pg_cron`) need a new server, as a fresh check would start.
        var preload: [String]

        /// Nil when the server cannot keep templates (then each run starts its own, as `check` does).
        static func start(_ args: ParsedArguments) throws -> Server? {
            let target = try DatabaseTarget.resolve(args) { _ in }
            do {
                return Server(
                    target: target, templates: try KeptServer(admin: target.connection, project: target.project),
                    preload: DatabaseTarget.preload(args))
            } catch let e as KeptServer.Unavailable {
                say(e.description)
                target.stop()
                return nil
            } catch {
                target.stop()
                throw error
            }
        }
    }

    static func runOnce(
        _ args: ParsedArguments, _ term: Terminal, previous: Snapshot?, server: inout Server?, unkept: inout [String]?
    ) -> Snapshot? {
        do {
            let preload = DatabaseTarget.preload(args)
            if let s = server, s.preload != preload {
                say(
                    term.dim(
                        "the migrations now preload \(names(preload)) (the server preloads \(names(s.preload))): starting a new server"
                    ))
                s.target.stop()
                server = nil
            }
            if unkept != nil && unkept != preload { unkept = nil }
            if server == nil, unkept == nil { server = try Server.start(args) }
            if server == nil { unkept = preload }
            let report: ProjectCheck.Report
            do { (_, report) = try CheckCommand.once(args, term, kept: server) } catch let e as KeptServer.Spoiled {
                say(term.dim(e.description))
                server?.target.stop()
                server = nil
                server = try Server.start(args)
                (_, report) = try CheckCommand.once(args, term, kept: server)
            }
            var now = Snapshot()
            for o in report.tests.outcomes where o.status != .skipped {
                now.checks[TextEscape.line(o.suite + " " + (o.actor.map { "[\($0)] " } ?? "") + o.name)] = !o.isFailure
            }
            now.findings = Set(report.audit.findings.map { "\($0.lint) \($0.object.schema).\($0.object.name)" })
            if let previous { for line in changes(from: previous, to: now, term: term) { say(line) } }
            return now
        } catch {
            // A migration that no longer applies: say so, keep watching.
            let (_, line) = ExitCode.of(error)
            printError(line)
            return nil
        }
    }

    /// Newly failing first, then newly passing, then the audit's new and gone findings.
    static func changes(from old: Snapshot, to new: Snapshot, term: Terminal) -> [String] {
        let failing = new.checks.filter { !$0.value && old.checks[$0.key] != false }.keys.sorted()
        let passing = new.checks.filter { $0.value && old.checks[$0.key] == false }.keys.sorted()
        let found = new.findings.subtracting(old.findings).sorted()
        let gone = old.findings.subtracting(new.findings).sorted()
        var out: [String] = []
        func block(_ title: String, _ items: [String], _ mark: String) {
            guard !items.isEmpty else { return }
            out.append("\(title) (\(items.count)):")
            out += items.map { "  \(mark) \($0)" }
        }
        block("newly failing", failing, term.red("✗"))
        block("newly passing", passing, term.green("✓"))
        block("new findings", found, term.red("!"))
        block("findings gone", gone, term.green("✓"))
        if out.isEmpty { out.append(term.dim("no check or finding changed since the last run")) }
        return out
    }

    /// The migrations, the folder around them (config.toml, seeds), the tests and the baseline.
    static func paths(_ args: ParsedArguments) -> [String] {
        var out: [String] = []
        let source = (try? MigrationsOption.source(args)) ?? .none
        if case .directory(let dir) = source {
            out.append(dir)
            let parent = FilePath.parent(dir)
            if !parent.isEmpty { out.append(parent) }
        }
        out += args.all("tests").isEmpty ? ["sql/tests", "supabase"] : args.all("tests")
        out += args.all("baseline")
        let fm = FileManager.default
        return out.filter { fm.fileExists(atPath: $0) }
    }

    static func summary(_ changed: [String]) -> String {
        let shown = changed.prefix(3).map(TextEscape.line).joined(separator: ", ")
        return "changed " + shown + (changed.count > 3 ? " and \(changed.count - 3) more" : "")
    }
}
