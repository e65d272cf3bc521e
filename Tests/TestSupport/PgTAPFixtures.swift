import Foundation
import Postgres

/// The pgTAP fixture suites and databases prepared for them.
public enum PgTAPFixtures {
    /// The repository root, found from this file.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    public static let dir = root + "/Tests/Fixtures/pgtap"
    public static let extraDir = root + "/Tests/Fixtures/pgtap-extra"
    /// Files that share state as under pg_prove (setup, teardown), and the project they test.
    public static let sharedDir = root + "/Tests/Fixtures/pgtap-shared"
    public static let sharedProjectSQL = root + "/Tests/Fixtures/pgtap-shared-project.sql"
    /// A suite that carries its own copy of some helpers, with other signatures than ours.
    public static let ownHelpersDir = root + "/Tests/Fixtures/pgtap-own-helpers"

    /// A fresh database with the Supabase stand-in (sql/compat), and pgTAP when asked.
    public static func standInDatabase(pgtap: Bool = false, extraSQL: String? = nil) throws -> (
        name: String, connectionString: ConnectionString
    ) {
        let db = try TestServer.makeDatabase(prefix: "pgtap")
        let conn = try PostgresConnection(db.connectionString)
        let compat = root + "/sql/compat"
        for f in try FileManager.default.contentsOfDirectory(atPath: compat).filter({ $0.hasSuffix(".sql") }).sorted() {
            _ = try conn.runScript(try String(contentsOfFile: compat + "/" + f, encoding: .utf8))
        }
        if pgtap { try conn.query("create extension pgtap") }
        if let extraSQL { _ = try conn.runScript(extraSQL) }
        return db
    }

    /// `file verdict` pairs from verdicts.txt: what pg_prove says of each fixture.
    public static func expectedVerdicts(in folder: String = dir) throws -> [(file: String, passes: Bool)] {
        try String(contentsOfFile: folder + "/verdicts.txt", encoding: .utf8)
            .split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { line in
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                return (String(parts[0]), parts[1] == "pass")
            }
    }

    /// What the fixture database looks like, to prove a run left nothing behind.
    public static func snapshot(_ conn: PostgresConnection) throws -> [String] {
        let sql = """
            select 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%'
            union all select 'fn ' || p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
             where n.nspname not in ('pg_catalog', 'information_schema')
            union all select 'schema ' || nspname from pg_namespace
            union all select 'ext ' || extname || ' ' || extversion from pg_extension
            union all select 'users ' || count(*) from auth.users
            union all select 'policy ' || schemaname || '.' || tablename || ' ' || policyname from pg_policies
            order by 1
            """
        return try conn.query(sql).rows.map { $0.values[0] ?? "" }
    }

    /// pg_prove's path; an error with the command that installs it when it is missing.
    public static func requirePgProve() throws -> String {
        try Tools.require("pg_prove", for: "the pgTAP comparison tests")
    }
}
