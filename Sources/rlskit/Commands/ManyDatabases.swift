import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `--database-url` given several times (or `--database-urls FILE`): the same work on every
/// database, a few at a time, every database run whatever the others did.
enum ManyDatabases {
    /// Databases worked on at once. A URL file often lists many databases of one server, and
    /// one connection each at once would exceed its max_connections (100 by default, less on
    /// small plans); the work is mostly the server's, so more would not be faster anyway.
    static let parallel = 4

    static func run<R: Sendable>(
        _ targets: [DatabaseTarget], workers: Int = parallel, _ body: @escaping @Sendable (DatabaseTarget) throws -> R
    ) -> [Result<R, any Error>] {
        // The body never throws into the pool: one database failing stops none of the others.
        let results =
            (try? WorkerPool.run(targets.count, workers: min(workers, targets.count), open: {}) { _, i in
                (Result { try body(targets[i]) }, false)
            }) ?? []
        return results.map { $0 ?? .failure(ConfigurationError("not run")) }
    }

    /// The line for a database that failed, and its exit code. The line names the database
    /// once (a connection error already says which).
    static func failure(_ error: any Error, database name: String) -> (code: ExitCode, line: String) {
        let (code, line) = ExitCode.of(error)
        if let e = error as? PostgresError, e.connectTarget != nil, code == .server {
            return (code, "\(name): cannot connect: \(e.message)")
        }
        return (code, "\(name): \(line)")
    }
}
