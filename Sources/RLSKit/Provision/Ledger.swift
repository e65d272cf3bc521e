import Postgres

/// The ledger of applied migrations, in schema `rlskit`.
enum Ledger {
    /// Session advisory lock key: ASCII "rlskit" as a bigint.
    static let lockKey: Int64 = 0x726c_736b_6974

    static let createSQL = """
        create schema if not exists rlskit;
        comment on schema rlskit is 'rlskit: migration ledger';
        revoke all on schema rlskit from public;
        create table if not exists rlskit.migrations (
          version     text primary key,
          name        text not null,
          checksum    text not null,
          applied_at  timestamptz not null default now(),
          duration_ms integer not null,
          applied_by  text not null default current_user
        );
        create table if not exists rlskit.stand_in (
          file       text primary key,
          checksum   text not null,
          applied_at timestamptz not null default now()
        );
        """

    struct Entry: Sendable {
        var version: String
        var name: String
        var checksum: String
    }

    /// Waits for the lock for at most `timeout` seconds.
    static func lock(_ conn: PostgresConnection, timeout: Double) throws {
        try conn.query("select set_config('lock_timeout', $1, false)", ["\(Int(timeout * 1000))ms"])
        defer { _ = try? conn.query("reset lock_timeout") }
        do { try conn.query("select pg_advisory_lock($1)", [lockKey]) } catch var e as PostgresError
            where e.sqlState == "55P03"
        {
            e.message =
                "another rlskit apply holds the migration lock; gave up after \(formatSeconds(timeout)) (raise --lock-timeout to wait longer)"
            throw e
        }
    }

    static func unlock(_ conn: PostgresConnection) {
        _ = try? conn.query("select pg_advisory_unlock($1)", [lockKey])
    }

    /// Creates the ledger when missing. Called inside the transaction of the first change, so a
    /// run that applies nothing (or fails) leaves the database as it was.
    static func ensure(_ conn: PostgresConnection) throws {
        if try !exists(conn) { _ = try conn.runScript(createSQL) }
    }

    static func exists(_ conn: PostgresConnection) throws -> Bool {
        try conn.query("select to_regclass('rlskit.stand_in') is not null as e").rows[0].decode("e")
    }

    /// Applied migrations; none when there is no ledger yet.
    static func applied(_ conn: PostgresConnection) throws -> [Entry] {
        guard try exists(conn) else { return [] }
        return try conn.query("select version, name, checksum from rlskit.migrations order by version").rows.map {
            Entry(version: try $0.decode("version"), name: try $0.decode("name"), checksum: try $0.decode("checksum"))
        }
    }
}

func formatSeconds(_ s: Double) -> String {
    s >= 1 ? (s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)) : "\(Int(s * 1000)) ms"
}
