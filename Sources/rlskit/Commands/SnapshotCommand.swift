import Foundation
import Postgres
@_spi(CLI) import RLSKit

enum SnapshotCommand {
    static let spec = CommandSpec(
        name: "snapshot",
        summary: "write the policy lock file (the security surface as canonical text)",
        details: """
            Prints RLS flags, policies, grants to the API roles, SECURITY DEFINER functions and
            storage buckets of the exposed schemas and storage, sorted so that the same schema
            always gives the same bytes. Commit it; 'rlskit diff FILE' shows what changed.
            """,
        options: [
            DatabaseTarget.existingOption,
            ProjectOptions.exposedSchemas,
            .option("output", "FILE", "Write the lock file to FILE instead of standard output."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let exposed = try exposedSchemas(args)
        let output = try OutputTarget(args.value("output"))
        try DatabaseTarget.requireGiven(args, command: "snapshot")
        let target = try DatabaseTarget.resolve(args) { _ in }
        defer { target.stop() }
        let surface = try SurfaceReader.run(options: .init(exposedSchemas: exposed), on: target.connection)
        try output.write(LockFile.render(surface))
        for u in surface.unread { printNote("note: \(u) (the lock file says so; its buckets are not compared)") }
        if output.isFile {
            say(
                "wrote \(output.path!): \(surface.tables.count) tables, \(surface.tables.reduce(0) { $0 + $1.policies.count }) policies, \(surface.functions.count) SECURITY DEFINER functions, \(surface.buckets.count) buckets"
            )
        }
        return .success
    }

    /// The project's exposed schemas (the option, else config.toml's); nil leaves them to the database.
    static func exposedSchemas(_ args: ParsedArguments) throws -> [String]? {
        try ProjectOptions(args).resolve(migrations: .projectSource()).exposedSchemas?.value
    }
}
