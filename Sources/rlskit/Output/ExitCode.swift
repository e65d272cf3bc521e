import Foundation
import Postgres
@_spi(CLI) import RLSKit

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

extension ExitCode {
    /// The one mapping from a failure to its exit code and the one line that says it, for a
    /// single database and for each of several alike.
    static func of(_ error: Error) -> (code: ExitCode, line: String) {
        switch error {
        case let e as UsageError: return (.usage, e.message)
        case let e as InputError: return (.usage, e.description)
        case let e as ConfigurationError: return (.usage, e.message)
        case let e as ConnectionLostError: return (.server, e.description)
        case let e as LocalClusterError:
            return (e.isConfiguration ? .usage : .server, "cannot start a throwaway PostgreSQL: \(e.message)")
        case let e as PostgresError where e.connectTarget != nil && e.message.hasPrefix("invalid "):
            // libpq refusing a setting ("invalid sslmode value") is the user's configuration.
            return (.usage, "the database URL has an invalid setting: \(e.message)")
        case let e as PostgresError where e.kind != .server: return (.server, e.line)
        case let e as PostgresError: return (.server, e.description)
        case let e as ScriptError: return (.server, e.error.description)
        default: return (.server, "\(error)")
        }
    }

    /// The worst of several outcomes, whatever their order: 3 > 2 > 1 > 0.
    static func worst(_ codes: [ExitCode]) -> ExitCode {
        codes.max { $0.rawValue < $1.rawValue } ?? .success
    }
}
