/// The exit codes of the `rlskit` command. They are part of its interface: never renumber.
enum ExitCode: Int32, Sendable {
    /// Everything ran and passed.
    case success = 0
    /// Checks failed, or findings at or above the threshold.
    case checksFailed = 1
    /// Wrong usage or configuration: unknown flag, unreadable or malformed file.
    case usage = 2
    /// No server: cannot connect, lost the connection, or the server failed a statement.
    case server = 3
}
