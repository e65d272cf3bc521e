import Foundation
import Postgres

/// Our schema on a fresh database, and what the harness tests need around it.
public enum OurSchema {
    /// The repository root, found from this file's location.
    public static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// A new database with the stand-in and our migrations (through the shared provisioner),
    /// plus `extra` SQL, e.g. a deliberate breakage.
    public static func makeDatabase(extra: String = "") throws -> (name: String, connectionString: ConnectionString) {
        let db = try Provisioned.database(prefix: "h")
        if !extra.isEmpty { _ = try PostgresConnection(db.connectionString).runScript(extra) }
        return db
    }

    /// Row counts of every table the harness could touch, for "nothing persists" checks.
    public static func snapshot(_ conn: PostgresConnection) throws -> [String: Int] {
        var out: [String: Int] = [:]
        let tables = try conn.query(
            """
            select n.nspname || '.' || c.relname as t from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where c.relkind = 'r' and n.nspname in ('public', 'auth', 'storage', 'private') order by 1
            """
        ).rows.map { try $0.decode("t", as: String.self) }
        for t in tables {
            let parts = t.split(separator: ".")
            out[t] = try conn.query(
                "select count(*) as n from \(try conn.escapeIdentifier(String(parts[0]))).\(try conn.escapeIdentifier(String(parts[1])))"
            )
            .rows[0].decode("n")
        }
        out["pg_roles"] = try conn.query("select count(*) as n from pg_roles").rows[0].decode("n")
        out["pg_proc"] = try conn.query("select count(*) as n from pg_proc").rows[0].decode("n")
        out["pg_policy"] = try conn.query("select count(*) as n from pg_policy").rows[0].decode("n")
        return out
    }
}

extension OurSchema {
    /// `dir/m`: the built-in migrations plus one that replaces profiles' update policies with
    /// `policy`, which lets any signed-in user update any profile (a leak the checks must catch).
    public static func migrationsWithUpdateLeak(in dir: String, policy: String = "anyone updates") throws -> String {
        let root = Provisioned.repositoryRoot
        let m = dir + "/m"
        try FileManager.default.createDirectory(atPath: m, withIntermediateDirectories: true)
        for f in try FileManager.default.contentsOfDirectory(atPath: root + "/sql/migrations") {
            try FileManager.default.copyItem(atPath: root + "/sql/migrations/" + f, toPath: m + "/" + f)
        }
        try """
        do $$ declare p record; begin
          for p in select policyname from pg_policies where schemaname = 'public' and tablename = 'profiles' and cmd = 'UPDATE' loop
            execute format('drop policy %I on public.profiles', p.policyname);
          end loop;
        end $$;
        create policy "\(policy)" on public.profiles for update to authenticated using (true);
        """.write(toFile: m + "/0099_leak.sql", atomically: true, encoding: .utf8)
        return m
    }
}
