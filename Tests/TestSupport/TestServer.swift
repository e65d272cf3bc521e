import Foundation
import Postgres
import Synchronization

/// The real server the tests run against: `RLSKIT_TEST_DATABASE_URL` when set (it must point
/// at a server where the user may create databases), else one throwaway cluster per test
/// process, stopped when the process exits.
public enum TestServer {
    private static let state = Mutex<(cluster: LocalCluster?, counter: Int)>((nil, 0))

    public static var connectionString: ConnectionString {
        get throws {
            if let url = ProcessInfo.processInfo.environment["RLSKIT_TEST_DATABASE_URL"], !url.isEmpty {
                return ConnectionString(url)
            }
            return try state.withLock { s in
                if let c = s.cluster { return c.connectionString }
                let c = try LocalCluster()
                s.cluster = c
                atexit { LocalCluster.stopAll() }
                return c.connectionString
            }
        }
    }

    /// A connection to the server's maintenance database.
    public static func connect() throws -> PostgresConnection {
        try PostgresConnection(connectionString)
    }

    /// A new, empty database; dropped by `drop`. Tests that change schema use one each.
    public static func makeDatabase(prefix: String = "t") throws -> (name: String, connectionString: ConnectionString) {
        let n = state.withLock { s in
            s.counter += 1
            return s.counter
        }
        let name = "\(prefix)_\(getpid())_\(n)"
        let admin = try connect()
        try admin.query("CREATE DATABASE \(try admin.escapeIdentifier(name)) TEMPLATE template0")
        var opts = try connectionString.options()
        opts["dbname"] = name
        let raw = opts.sorted { $0.key < $1.key }.map { "\($0.key)='\(escape($0.value))'" }.joined(separator: " ")
        return (name, ConnectionString(raw))
    }

    public static func drop(_ name: String) {
        guard let admin = try? connect(), let id = try? admin.escapeIdentifier(name) else { return }
        _ = try? admin.query("DROP DATABASE IF EXISTS \(id) WITH (FORCE)")
    }

    static func escape(_ v: String) -> String {
        v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
