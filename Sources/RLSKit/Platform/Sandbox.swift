import Foundation
@_spi(CLI) import Postgres

/// The throwaway server as a sandbox for the project's untrusted SQL: the platform's roles
/// (postgres is no superuser), a per-run password for every login, and rlskit's server module
/// (sql/server/rlskit_sandbox.c) preloaded to refuse what supautils refuses on the platform
/// and what the sandbox must never allow (superuser rights for a project's code, the server's
/// files and programs, connections to other servers).
@_spi(CLI) public enum Sandbox {
    /// supautils' reserved roles on the platform; `*`: settings may still be stored on it.
    static let reservedRoles = [
        "supabase_admin", "supabase_auth_admin", "supabase_storage_admin", "supabase_read_only_user",
        "supabase_realtime_admin", "supabase_replication_admin", "supabase_functions_admin", "supabase_etl_admin",
        "dashboard_user", "pgbouncer", "service_role*", "authenticator*", "authenticated*", "anon*", definerRole,
    ]
    /// supautils' reserved memberships: only a superuser may grant them.
    static let reservedMemberships = [
        "pg_read_server_files", "pg_write_server_files", "pg_execute_server_program", "pg_write_all_data",
        "supabase_admin",
        "supabase_auth_admin", "supabase_storage_admin", "supabase_read_only_user", "supabase_realtime_admin",
        "supabase_replication_admin", "supabase_functions_admin", "supabase_etl_admin", "dashboard_user", "pgbouncer",
        "authenticator", definerRole,
    ]
    /// What a superuser's SECURITY DEFINER function runs as when a project's session calls it.
    static let definerRole = "rlskit_definer"
    /// The Data API's login role: rlskit's harness logs in as it, as PostgREST does, so
    /// `session_user` is `authenticator` inside an API check (the server module lets these
    /// sessions switch to `harnessRoles` outside a project's function; see rlskit_sandbox.c).
    static let apiLogin = "authenticator"
    /// The Storage API's login role (its DATABASE_URL's user): bucket checks log in as it.
    static let storageLogin = "supabase_storage_admin"
    /// Where the harness seeds (postgres) and signs users up (supabase_auth_admin).
    static let harnessRoles = ["postgres", "supabase_auth_admin"]
    /// supautils' policy_grants: postgres manages these tables' policies (and drops their
    /// triggers) without owning them; the server module runs the statement as the owner.
    static let policyGrants = [
        "auth.audit_log_entries", "auth.identities", "auth.refresh_tokens", "auth.sessions", "auth.users",
        "realtime.messages", "realtime.subscription", "storage.buckets", "storage.migrations", "storage.objects",
        "storage.s3_multipart_uploads", "storage.s3_multipart_uploads_parts",
    ]

    /// supautils' privileged_role_allowed_configs: settings postgres may store on a role
    /// (`alter role authenticator set pgrst.db_pre_request = …`); `*` ends a prefix.
    static let allowedConfigs = [
        "auto_explain.log_min_duration", "auto_explain.log_nested_statements", "log_lock_waits", "log_min_messages",
        "pg_net.batch_size", "pg_net.ttl", "pgaudit.log", "pgaudit.log_catalog", "pgaudit.log_client",
        "pgaudit.log_level", "pgaudit.log_relation", "pgaudit.log_rows", "pgaudit.log_statement",
        "pgaudit.log_statement_once", "pgaudit.role", "pgrst.*", "plan_filter.*", "safeupdate.enabled",
        "session_replication_role", "track_io_timing",
    ]

    /// `options` made a sandbox: platform roles, passwords and the server module; with `cache`,
    /// initdb's output is kept in the private cache folder for the next run.
    public static func options(_ options: LocalCluster.Options, cache: Bool = true) throws -> LocalCluster.Options {
        var o = options
        o.bootstrap = PlatformRole.bootstrap
        o.bootstrap?.logins = [apiLogin, storageLogin]
        if cache, ProcessInfo.processInfo.environment["RLSKIT_NO_CACHE"].map({ $0.isEmpty }) ?? true,
            let folder = try? privateCacheFolder()
        {
            o.clusterCache = folder
            o.prepare = prepared
        }
        o.serverModules["rlskit_sandbox.so"] = try module(bin: try LocalCluster.findBinDirectory())
        o.settings["rlskit_sandbox.reserved_roles"] = "'\(reservedRoles.joined(separator: ","))'"
        o.settings["rlskit_sandbox.reserved_memberships"] = "'\(reservedMemberships.joined(separator: ","))'"
        o.settings["rlskit_sandbox.definer_role"] = "'\(definerRole)'"
        o.settings["rlskit_sandbox.harness_logins"] = "'\(apiLogin),\(storageLogin)'"
        o.settings["rlskit_sandbox.harness_roles"] = "'\(harnessRoles.joined(separator: ","))'"
        o.settings["rlskit_sandbox.allowed_configs"] = "'\(allowedConfigs.joined(separator: ","))'"
        o.settings["rlskit_sandbox.policy_grants"] = "'\(policyGrants.joined(separator: ","))'"
        return o
    }

    /// The stand-in and the platform's grants, installed once per cached template (as a run
    /// installs them: the project's `postgres` beside the admin) instead of once per run.
    static let prepared = LocalCluster.Prepare(key: KeptServer.builtIn) { cluster in
        var m = Migrator.Options()
        m.projectConnection = cluster.connectionString
        _ = try Migrator.run(.none, options: m, on: cluster.adminConnectionString)
    }

    /// How the harness reaches a throwaway server as an API does: `project` (its `postgres`)
    /// with user `login`, a new per-run password where logins need one (set by `admin`),
    /// starting as postgres (`-c role=postgres`), so `set_config('role', null, true)` comes back
    /// there. Whoever connects falls back to `project` where the login fails (a server rlskit did
    /// not start as a sandbox): nothing is tried here, a connection costs time.
    static func apiConnection(
        _ login: String = apiLogin, admin: ConnectionString, project: ConnectionString
    ) -> ConnectionString? {
        guard var o = try? project.options(), o["password"] == nil || o["password"]?.isEmpty == false else {
            return nil
        }
        o["user"] = login
        // Seeds and `as admin` steps run as postgres does on a direct connection; the Storage
        // login's own search_path (`storage`) is set per check, where the Storage API's counts.
        o["options"] = "-c role=postgres" + (login == storageLogin ? " -c search_path=public,extensions" : "")
        do {
            if o["password"] != nil {
                var rng = SystemRandomNumberGenerator()
                let secret = (0..<24).map { _ in String(format: "%02x", rng.next() as UInt8) }.joined()
                let conn = try PostgresConnection(admin)
                defer { conn.close() }
                let verifier = try conn.escapeLiteral(
                    try conn.passwordVerifier(secret, user: login, algorithm: "scram-sha-256"))
                _ = try conn.runScript("alter role \(SQL.ident(login)) password \(verifier)")
                o["password"] = secret
            }
            return ConnectionString(
                o.sorted { $0.key < $1.key }.map { "\($0.key)=\(ConnectionString.quoted($0.value))" }.joined(
                    separator: " "))
        } catch {
            return nil
        }
    }

    static var source: String {
        BuiltInSQL.all.first { $0.path == "server/rlskit_sandbox.c" }?.contents ?? ""
    }

    /// The module built for this server, from the cache when it was built before (a folder
    /// only this user may write), else compiled now (about a second, once).
    static func module(bin: String) throws -> Data {
        // One pg_config run for both answers: this is on every cold start.
        let answers = ((try? Self.output(bin + "/pg_config", ["--includedir-server", "--version"])) ?? "")
            .split(separator: "\n").map(String.init)
        let includes = answers.count == 2 ? answers[0] : nil
        let version = answers.count == 2 ? answers[1] : ""
        guard let includes, FileManager.default.fileExists(atPath: includes + "/postgres.h") else {
            throw ConfigurationError(
                "rlskit's sandbox needs PostgreSQL's server headers to build its server module: install postgresql-server-dev-\(majorVersion(version) ?? "<major>") (scripts/ensure-deps installs it)"
            )
        }
        let key = SHA256.hex(SHA256.digest(Array((source + "\u{0}" + version + "\u{0}" + includes).utf8))).prefix(16)
        let name = "rlskit_sandbox-\(key).so"
        let cache = try? privateCacheFolder()
        if let cache, PrivatePath.check(cache + "/" + name, directory: false),
            let data = FileManager.default.contents(atPath: cache + "/" + name)
        {
            return data
        }
        let work = try makeTemporaryFolder(in: cache)
        defer { TreeRemoval.remove(work) }
        let c = work + "/rlskit_sandbox.c"
        try Data(source.utf8).write(to: URL(fileURLWithPath: c))
        let built = work + "/" + name
        do {
            _ = try Self.output(
                "/usr/bin/env",
                [
                    "cc", "-shared", "-fPIC", "-O2", "-fno-strict-aliasing", "-fwrapv", "-I" + includes, "-o", built, c,
                ])
        } catch {
            throw ConfigurationError(
                "rlskit's sandbox cannot build its server module (\(error)): install a C compiler (gcc) and postgresql-server-dev-\(majorVersion(version) ?? "<major>") (scripts/ensure-deps installs them)"
            )
        }
        guard let data = FileManager.default.contents(atPath: built) else {
            throw ConfigurationError("cannot read the server module just built")
        }
        // rename is atomic: two runs building at once both leave one whole file. Without a
        // private cache folder the module is built again next time.
        if let cache, chmod(built, 0o600) == 0 { _ = rename(built, cache + "/" + name) }
        return data
    }

    /// `$XDG_CACHE_HOME/rlskit`, else `~/.cache/rlskit`: made private, refused when another user
    /// could write it (or a folder above it, but for sticky ones such as /tmp).
    public static func privateCacheFolder(_ env: [String: String] = ProcessInfo.processInfo.environment) throws
        -> String
    {
        let base =
            env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { $0.hasPrefix("/") ? $0 + "/.cache" : nil }
        guard let base else { throw ConfigurationError("no cache folder") }
        let dir = base + "/rlskit"
        _ = mkdir(base, 0o700)
        _ = mkdir(dir, 0o700)
        guard PrivatePath.check(dir, directory: true) else {
            throw ConfigurationError(
                "\(dir) is not private (a folder of this user's that no one else may read or write, mode 0700): not used; remove it and rlskit makes a new one"
            )
        }
        var parent = (dir as NSString).deletingLastPathComponent
        while parent != "/" && !parent.isEmpty {
            var st = stat()
            guard lstat(parent, &st) == 0 else { throw ConfigurationError("cannot inspect \(parent)") }
            let writable = st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0
            if (st.st_uid != geteuid() && st.st_uid != 0) || writable {
                throw ConfigurationError("\(parent) can be written by other users")
            }
            parent = (parent as NSString).deletingLastPathComponent
        }
        return dir
    }

    static func makeTemporaryFolder(in dir: String?) throws -> String {
        let base = dir ?? (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        let template = base + "/rlskit-build-XXXXXX"
        let made = template.withCString { p -> String? in
            let buf = strdup(p)!
            defer { free(buf) }
            return mkdtemp(buf).map { String(cString: $0) }
        }
        guard let made else {
            throw ConfigurationError("cannot create a folder under \(base) to build the server module")
        }
        return made
    }

    static func majorVersion(_ version: String) -> String? {
        version.split(separator: " ").last.flatMap { $0.split(separator: ".").first }.map(String.init)
    }

    static func output(_ tool: String, _ args: [String]) throws -> String {
        do { return try Spawn.output(tool, args) } catch let e as LocalClusterError {
            throw ConfigurationError(e.message)
        }
    }
}
