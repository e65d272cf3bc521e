import Postgres

/// The server went away in the middle of a run: which database, during what, and libpq's words.
public struct ConnectionLostError: Error, Sendable, CustomStringConvertible {
    public var database: String
    public var during: String
    public var error: PostgresError

    public init(database: String, during: String, error: PostgresError) {
        self.database = database
        self.during = during
        self.error = error
    }

    public var description: String { "lost the connection to \(database) while \(during): \(error.line)" }
}
