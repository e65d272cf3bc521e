import Foundation
import Postgres
import RLSKit

/// Databases with the stand-in and our schema applied, for tests of behaviour.
public enum Provisioned {
    /// A fresh database with the stand-in and `source` applied; drop it with `TestServer.drop`.
    public static func database(source: MigrationSource = .builtIn, prefix: String = "p") throws -> (
        name: String, connectionString: ConnectionString
    ) {
        let db = try TestServer.makeDatabase(prefix: prefix)
        _ = try Migrator.run(source, on: db.connectionString)
        return db
    }

    /// The repository's root (for reading sql/ and Tests/Fixtures).
    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }
}
