extension LocalCluster {
    /// A cluster whose bootstrap superuser is not `postgres`, and where only this process logs in
    /// (peer from root only, else per-run scram-sha-256 passwords). The caller names the roles.
    public struct Bootstrap: Sendable {
        /// initdb's superuser: the role of `adminConnectionString`. A plain lower-case name: the
        /// login rules and connection strings hold it unquoted.
        public var superuser: String
        /// Run as `superuser` on the first login; it must create `postgres` (with LOGIN), the role
        /// of `connectionString`.
        public var setup: String
        /// Other roles only rlskit may log in as (`LocalCluster.login(as:)`), created later.
        public var logins: [String]

        public init(superuser: String, setup: String, logins: [String] = []) {
            self.superuser = superuser
            self.setup = setup
            self.logins = logins
        }
    }

    /// With passwords, `postgres` and the superuser log in with the run's (scram-sha-256: what the
    /// catalog keeps is no password, and postgres may read the catalog through pg_read_all_data).
    static func createRoles(
        _ bootstrap: Bootstrap, on admin: ConnectionString, adminPassword: String?, password: String?,
        setup: Bool = true
    ) throws {
        let conn = try PostgresConnection(admin)
        defer { conn.close() }
        // A prepared template holds the roles already.
        if setup { _ = try conn.runScript(bootstrap.setup) }
        for (user, secret) in [(bootstrap.superuser, adminPassword), ("postgres", password)] {
            guard let secret else { continue }
            let verifier = try conn.escapeLiteral(
                try conn.passwordVerifier(secret, user: user, algorithm: "scram-sha-256"))
            _ = try conn.runScript("alter role \(try conn.escapeIdentifier(user)) password \(verifier)")
        }
    }

    /// Makes the server read its login rules again (they changed after the first login).
    static func reloadConfiguration(on admin: ConnectionString) throws {
        let conn = try PostgresConnection(admin)
        defer { conn.close() }
        _ = try conn.query("select pg_catalog.pg_reload_conf()")
    }
}
