import Foundation
import Postgres
@_spi(CLI) import RLSKit

enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        summary: "compare a policy lock file (or a second database) with a database",
        positionals: "[LOCKFILE]",
        maxPositionals: 1,
        details: """
            Lists what changed from LOCKFILE (or from the database, with --against) to the
            database (or to --against URL), each change WIDENING (someone may see or do more),
            NARROWING or NEUTRAL. A change that cannot be shown to narrow access is widening.
            Exit 1 when there is a widening change, unless --accept-widening.
            """,
        options: [
            DatabaseTarget.existingOption,
            .option("against", "URL", "Compare with this database instead of the lock file (it is the new side)."),
            ProjectOptions.exposedSchemas,
            .flag("accept-widening", "Exit 0 even when access widens (after review)."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let exposed = try SnapshotCommand.exposedSchemas(args)
        let lockPath = args.positionals.first
        let against = args.value("against")
        guard lockPath != nil || against != nil else {
            throw ConfigurationError("diff needs a lock file (rlskit diff policy.lock) or --against URL")
        }
        var old: SecuritySurface?
        if let lockPath {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: lockPath)) } catch {
                throw ConfigurationError("cannot read \(lockPath): \(OutputTarget.reason(error))")
            }
            guard let text = TextFile.decode(data) else { throw ConfigurationError("\(lockPath):1: not UTF-8 text") }
            old = try LockFile.parse(text, file: lockPath)
        }
        var new: SecuritySurface
        if let against {
            let c = ConnectionString(against)
            do { _ = try c.options() } catch {
                throw ConfigurationError(
                    "--against is not a valid connection string: expected postgresql://user@host:port/db")
            }
            if old == nil {
                try DatabaseTarget.requireGiven(args, command: "diff --against")
                let target = try DatabaseTarget.resolve(args) { _ in }
                old = try SurfaceReader.run(options: .init(exposedSchemas: exposed), on: target.connection)
            }
            new = try SurfaceReader.run(options: .init(exposedSchemas: exposed), on: c)
        } else {
            try DatabaseTarget.requireGiven(args, command: "diff")
            let target = try DatabaseTarget.resolve(args) { _ in }
            new = try SurfaceReader.run(options: .init(exposedSchemas: exposed), on: target.connection)
        }
        let changes = SurfaceDiff.diff(old!, new)
        for c in changes {
            let line = TextEscape.line(c.line)  // names inside: one change, one line
            say(c.kind == .widening ? term.red(line) : c.kind == .narrowing ? term.green(line) : term.dim(line))
        }
        let widening = changes.filter { $0.kind == .widening }.count
        let narrowing = changes.filter { $0.kind == .narrowing }.count
        say(
            changes.isEmpty
                ? "no changes"
                : "\(widening) widening, \(narrowing) narrowing, \(changes.count - widening - narrowing) neutral")
        if widening > 0 && !args.flag("accept-widening") {
            printError(
                "\(widening) change\(widening == 1 ? " widens" : "s widen") access; review them, then rerun with --accept-widening or update the lock file with 'rlskit snapshot'"
            )
            return .checksFailed
        }
        return .success
    }
}
