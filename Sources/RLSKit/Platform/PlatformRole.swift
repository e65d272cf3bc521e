import Postgres

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
        create role \(Sandbox.definerRole) nologin nosuperuser bypassrls;
        """

    static let bootstrap = LocalCluster.Bootstrap(superuser: admin, setup: sql)
}
