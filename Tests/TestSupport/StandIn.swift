import Foundation
import Postgres

/// Installs SQL from the repository on a test database. Until the provisioning API exists,
/// this is the one place that knows how: every file of a directory, in name order.
public enum StandIn {
    /// The package root (this file is Tests/TestSupport/StandIn.swift).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Supabase stand-in (sql/compat).
    public static func install(_ conn: PostgresConnection) throws { try apply(directory: "sql/compat", conn) }

    /// Our schema (sql/migrations), on top of the stand-in.
    public static func installMigrations(_ conn: PostgresConnection) throws {
        try apply(directory: "sql/migrations", conn)
    }

    public static func apply(directory: String, _ conn: PostgresConnection) throws {
        let dir = root.appendingPathComponent(directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        for f in files { try apply(file: "\(directory)/\(f)", conn) }
    }

    public static func apply(file: String, _ conn: PostgresConnection) throws {
        let sql = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        _ = try conn.runScript(sql)
    }

    /// A fresh database with the stand-in installed; returns it connected.
    public static func makeDatabase(prefix: String = "a") throws -> (
        name: String, connectionString: ConnectionString, conn: PostgresConnection
    ) {
        let db = try TestServer.makeDatabase(prefix: prefix)
        let conn = try PostgresConnection(db.connectionString)
        try install(conn)
        return (db.name, db.connectionString, conn)
    }
}
