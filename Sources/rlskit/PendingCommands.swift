import RLSKit

/// Subcommands that exist in the interface but are not built yet.
enum PendingCommand {
    static func spec(_ name: String, _ summary: String) -> CommandSpec {
        CommandSpec(name: name, summary: summary, options: [DatabaseTarget.option])
    }

    static func run(_ spec: CommandSpec) -> ExitCode {
        printError("'\(spec.name)' is not yet available in this version")
        return .usage
    }
}
