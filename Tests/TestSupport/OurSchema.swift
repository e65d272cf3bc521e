import Foundation
import Postgres

/// Our schema (sql/compat then sql/migrations) on a fresh database, applied file by file.
/// One place to swap for the shared provisioner once it lands.
public enum OurSchema {
    /// The repository root, found from this file's location.
    public static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    public static func apply(_ conn: PostgresConnection) throws {
        for dir in ["sql/compat", "sql/migrations"] {
            let path = root + "/" + dir
            for f in try FileManager.default.contentsOfDirectory(atPath: path).filter({ $0.hasSuffix(".sql") }).sorted() {
                _ = try conn.runScript(try String(contentsOfFile: path + "/" + f, encoding: .utf8))
            }
        }
    }

    /// A new database with our schema (plus `extra` SQL, e.g. a deliberate breakage).
    public static func makeDatabase(extra: String = "") throws -> (name: String, connectionString: ConnectionString) {
        let db = try TestServer.makeDatabase(prefix: "h")
        let conn = try PostgresConnection(db.connectionString)
        try apply(conn)
        if !extra.isEmpty { _ = try conn.runScript(extra) }
        return db
    }

    /// Row counts of every table the harness could touch, for "nothing persists" checks.
    public static func snapshot(_ conn: PostgresConnection) throws -> [String: Int] {
        var out: [String: Int] = [:]
        let tables = try conn.query("""
            select n.nspname || '.' || c.relname as t from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where c.relkind = 'r' and n.nspname in ('public', 'auth', 'storage', 'private') order by 1
            """).rows.map { try $0.decode("t", as: String.self) }
        for t in tables {
            let parts = t.split(separator: ".")
            out[t] = try conn.query("select count(*) as n from \(try conn.escapeIdentifier(String(parts[0]))).\(try conn.escapeIdentifier(String(parts[1])))")
                .rows[0].decode("n")
        }
        out["pg_roles"] = try conn.query("select count(*) as n from pg_roles").rows[0].decode("n")
        out["pg_proc"] = try conn.query("select count(*) as n from pg_proc").rows[0].decode("n")
        out["pg_policy"] = try conn.query("select count(*) as n from pg_policy").rows[0].decode("n")
        return out
    }
}
