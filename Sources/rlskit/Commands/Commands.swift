@_spi(CLI) import RLSKit

/// A subcommand: its interface and what runs it.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments, Terminal) throws -> ExitCode
}

/// Every subcommand, in the order `rlskit --help` lists them.
enum Commands {
    static let all: [Subcommand] = [
        Subcommand(spec: CheckCommand.spec, run: CheckCommand.run),
        Subcommand(spec: ApplyCommand.spec, run: ApplyCommand.run),
        Subcommand(spec: TestCommand.spec, run: TestCommand.run),
        Subcommand(spec: MutateCommand.spec, run: MutateCommand.run),
        Subcommand(spec: InitCommand.spec, run: InitCommand.run),
        Subcommand(spec: AuditCommand.spec, run: AuditCommand.run),
        Subcommand(spec: SnapshotCommand.spec, run: SnapshotCommand.run),
        Subcommand(spec: DiffCommand.spec, run: DiffCommand.run),
        Subcommand(spec: PgTAPRun.spec, run: PgTAPRun.run),
        Subcommand(spec: StorageCommand.spec, run: StorageCommand.run),
        Subcommand(spec: CacheCommand.spec, run: CacheCommand.run),
    ]
}
