/// `postgres` as hosted Supabase has it, for a throwaway cluster: the bootstrap superuser is
/// `supabase_admin`, and `postgres` is an ordinary role with the platform's attributes. The
/// grants that name Supabase's own roles and schemas come later, with the stand-in.
enum PlatformRole {
    static let admin = "supabase_admin"

    /// The platform demotes `postgres` and gives it the database and predefined monitoring roles.
    /// It owns the database there, so schema `public` (owned by `pg_database_owner`) is its own.
    static let sql = """
        create role postgres login nosuperuser createrole createdb replication bypassrls;
        alter database postgres owner to postgres;
        grant all on database postgres to postgres;
        grant all on schema public to postgres;
        grant pg_monitor, pg_read_all_data, pg_signal_backend to postgres;
        create role rlskit_definer nologin nosuperuser bypassrls;
        """

    /// With passwords, `postgres` and the admin log in with the run's (scram-sha-256: what the
    /// catalog keeps is no password, and postgres may read the catalog through pg_read_all_data).
    static func create(on admin: ConnectionString, adminPassword: String?, password: String?) throws {
        let conn = try PostgresConnection(admin)
        defer { conn.close() }
        _ = try conn.runScript(sql)
        for (user, secret) in [(Self.admin, adminPassword), ("postgres", password)] {
            guard let secret else { continue }
            let verifier = try conn.escapeLiteral(
                try conn.passwordVerifier(secret, user: user, algorithm: "scram-sha-256"))
            _ = try conn.runScript("alter role \(user) password \(verifier)")
        }
    }

    /// Makes the server read its login rules again (they changed after the first login).
    static func reloadConfiguration(on admin: ConnectionString) throws {
        let conn = try PostgresConnection(admin)
        defer { conn.close() }
        _ = try conn.query("select pg_catalog.pg_reload_conf()")
    }
}
