import Foundation
import Postgres
@_spi(CLI) import RLSKit

let subcommands = Commands.all

let topHelp = """
    rlskit \(RLSKitVersion.current) — provision, prove and audit Row Level Security on PostgreSQL / Supabase

    usage: rlskit <command> [options]

    commands:
    \(subcommands.map { "  " + $0.spec.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.spec.summary }.joined(separator: "\n"))

    options:
      -h, --help     Show help (also after a command: rlskit check --help).
      --version      Print the version.

    exit codes: 0 passed, 1 checks failed or findings, 2 usage or configuration error,
                3 cannot connect or server error.
    """

/// Maps any error to one line and its documented exit code.
@MainActor func report(_ error: Error, command: String?) -> ExitCode {
    let (code, line) = ExitCode.of(error)
    printError(line)
    // The error stays one line on stderr; what the stopped run did is its report, on stdout.
    if let e = error as? MigrationError, let summary = e.summary { say(summary) }
    if let e = error as? UsageError {
        printNote(e.usage + "\n" + "run 'rlskit \(command.map { $0 + " " } ?? "")--help' for more")
    }
    return code
}

@MainActor func main() -> ExitCode {
    // A closed pipe on stdout is reported (exit 2), not a silent death by SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    LocalCluster.stopClustersOnSignals()
    var args = Array(CommandLine.arguments.dropFirst())
    confineProjectFiles(args)
    let term = Terminal.detect()
    guard let first = args.first else {
        say(topHelp)
        return .usage
    }
    if first == "--help" || first == "-h" || first == "help" {
        if args.count > 1, let sub = subcommands.first(where: { $0.spec.name == args[1] }) {
            writeOut(sub.spec.help)
        } else {
            say(topHelp)
        }
        return .success
    }
    if first == "--version" {
        say("rlskit \(RLSKitVersion.current)")
        return .success
    }
    guard let sub = subcommands.first(where: { $0.spec.name == first }) else {
        let hint = first.hasPrefix("-") ? nil : Suggestion.closest(to: first, among: subcommands.map(\.spec.name))
        return report(
            UsageError(
                message: first.hasPrefix("-")
                    ? "unknown option '\(first)'"
                    : "unknown command '\(first)'" + (hint.map { " (did you mean '\($0)'?)" } ?? ""),
                usage:
                    "usage: rlskit <command> [options]  (commands: \(subcommands.map(\.spec.name).joined(separator: ", ")))"
            ),
            command: nil)
    }
    args.removeFirst()
    do {
        let parsed = try sub.spec.parse(args)
        if parsed.flag("help") {
            writeOut(sub.spec.help)
            return .success
        }
        return try sub.run(parsed, term)
    } catch {
        return report(error, command: sub.spec.name)
    }
}

var code = main()
// Output that never arrived (a full disk, a closed pipe) is a failure, not a success.
if !flushOutput() {
    printError("cannot write to standard output")
    if code == .success { code = .usage }
}
LocalCluster.exitProcess(code.rawValue)

/// Project files may only resolve inside the working directory or a path given here.
func confineProjectFiles(_ args: [String]) {
    ProjectFiles.confine(to: ProjectFiles.roots(directory: FileManager.default.currentDirectoryPath, arguments: args))
}
