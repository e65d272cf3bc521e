import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `--database-url` given several times (or `--database-urls FILE`): the same work on every
/// database in parallel, one worker each, every database run whatever the others did.
enum ManyDatabases {
    static func run<R: Sendable>(_ targets: [DatabaseTarget], _ body: @escaping @Sendable (DatabaseTarget) throws -> R)
        -> [Result<R, any Error>]
    {
        // The body never throws into the pool: one database failing stops none of the others.
        let results =
            (try? WorkerPool.run(targets.count, workers: targets.count, open: {}) { _, i in
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
