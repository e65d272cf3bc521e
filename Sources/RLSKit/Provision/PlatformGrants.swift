import Postgres

/// A throwaway server's `postgres` as hosted Supabase has it (`sql/platform`): run as the
/// admin once the stand-in is there. rlskit's ledger stays the admin's; `postgres` may only
/// read it and add its rows, since each migration's row shares the migration's transaction.
enum PlatformGrants {
    static func install(_ admin: PostgresConnection) throws {
        try Ledger.ensure(admin)
        for file in BuiltInSQL.files(in: "platform") {
            do { _ = try admin.runScript(file.contents) } catch {
                throw MigrationError(file: file, script: error, sent: SQLScanner.statements(in: file.contents))
            }
        }
        _ = try admin.runScript(
            "grant usage on schema rlskit to postgres; grant select, insert on rlskit.migrations to postgres")
    }

    /// `rlskit.seeds`, made by the admin before a seed runs as `postgres`.
    static func seedsTable(_ admin: PostgresConnection, _ create: String) throws {
        _ = try admin.runScript(create + "; grant select, insert on rlskit.seeds to postgres")
    }
}
