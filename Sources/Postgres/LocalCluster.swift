import CLibPQ
import Foundation
import Synchronization

/// A throwaway PostgreSQL server: a fresh cluster in a new temporary directory, reachable only
/// through a Unix socket inside that directory (trust authentication, or with
/// `Options.bootstrap` rlskit's logins only: peer from root, else passwords made for this
/// run). `stop()` (or `withLocalCluster`)
/// ends the server and deletes the directory.
///
/// PostgreSQL refuses to run as root; when started as root the server runs as an unprivileged
/// user (`postgres` unless `RLSKIT_SERVER_USER` names another) who is given the directory.
public final class LocalCluster: Sendable {
    public let directory: String
    /// A keyword connection string for `postgres`: the superuser, unless `Options.bootstrap`
    /// made it another role.
    public let connectionString: ConnectionString
    /// A connection string for the bootstrap superuser (`Options.bootstrap`'s superuser, else
    /// `postgres`, the same as `connectionString`).
    public let adminConnectionString: ConnectionString
    public let binDirectory: String
    let serverPID: Int32
    let registration: Int
    let childProcess: ChildProcess
    /// Libraries preloaded (those of `Options.preloadLibraries` the server has).
    public let preloaded: [String]
    let overlayNote = Mutex<String?>(nil)
    /// The per-run password of `postgres` (nil where there is none: trust, or peer as root).
    let password: String?
    /// The cached cluster template being written from this cluster's folder (first runs only).
    let cacheWrite: DispatchGroup?
    /// Started from a cached template that holds `Options.prepare`'s work (and the roles).
    public let isPrepared: Bool
    /// Set when `Options.extensionFiles` could not be offered (an unknown install layout).
    public var extensionNote: String? { overlayNote.withLock { $0 } }

    public struct Options: Sendable {
        /// Extra `postgresql.conf` lines.
        public var settings: [String: String] = [:]
        public var startTimeout: Double = 30
        /// Extension files (`name.control`, `name--1.0.sql`) offered next to the server's own.
        public var extensionFiles: [String: String] = [:]
        /// Preloaded (shared_preload_libraries) when the server has them.
        public var preloadLibraries: [String] = []
        /// Extensions of the server's own that a non-superuser may create (`trusted = true`
        /// added to their control files in the overlay).
        public var trustedExtensions: [String] = []
        /// Bootstrap the cluster with another superuser, which creates `postgres` as it chooses.
        /// Also: only rlskit logs in (peer from root only, else per-run scram-sha-256 passwords).
        public var bootstrap: Bootstrap? = nil
        /// With `bootstrap`: a private folder where initdb's output is kept for the next run
        /// (one template per server build), so a run copies it instead of running initdb.
        public var clusterCache: String? = nil
        /// Server modules to preload (file name → the shared library's bytes), written into the
        /// cluster's directory by this process, so the server's user can neither replace nor skip them.
        public var serverModules: [String: Data] = [:]
        /// With `clusterCache`: work done once per template instead of once per run.
        public var prepare: Prepare? = nil
        public init() {}
    }

    /// What a cached template holds beyond initdb's output: the bootstrap roles and what
    /// `install` makes, run on a cluster of its own that is then shut down cleanly (sequences
    /// and the catalog as a fresh install leaves them) and kept. A run started from it skips
    /// both (`isPrepared`); a first run builds it beside itself.
    public struct Prepare: Sendable {
        /// Names what `install` makes: part of the template's key.
        public var key: String
        public var install: @Sendable (LocalCluster) throws -> Void
        public init(key: String, install: @escaping @Sendable (LocalCluster) throws -> Void) {
            self.key = key
            self.install = install
        }
    }

    /// Creates, starts and waits for the cluster.
    public init(options: Options = Options()) throws {
        func trace(_ step: String) {
            guard Self.tracing else { return }
            FileHandle.standardError.write(
                Data("rlskit: cluster \(step): \(Int(-Self.traceClock.timeIntervalSinceNow * 1000)) ms\n".utf8))
            Self.traceClock = Date()
        }
        if Self.tracing { Self.traceClock = Date() }
        let base = try Self.temporaryBase()
        let bin = try Self.findBinDirectory()
        binDirectory = bin
        let runAs = try Self.serverUser()
        let template = base + "/rlskit-pg-XXXXXX"
        // Created and registered under the exit lock: a signal can only act before the directory
        // exists or after it is registered, so it is always removed, with whichever child
        // (initdb or the server) is running.
        let child = ChildProcess()
        childProcess = child
        let (made, registered) = try ClusterRegistry.shared.exiting.withLock {
            _ throws(LocalClusterError) -> (String, Int) in
            // The watchdog comes first, so even a kill -9 right after mkdtemp is covered.
            Watchdog.start(child: child)
            guard
                let made = template.withCString({ p -> String? in
                    let buf = strdup(p)!
                    defer { free(buf) }
                    return mkdtemp(buf).map { String(cString: $0) }
                })
            else {
                throw LocalClusterError(
                    "cannot create a temporary directory under \(base) (\(String(cString: strerror(errno)))): set TMPDIR to a writable directory",
                    configuration: true)
            }
            Watchdog.tell(child, "dir " + made)
            return (made, ClusterRegistry.shared.add { Self.terminate(child: child, directory: made) })
        }
        directory = made
        registration = registered
        let data = made + "/data"
        let run = made + "/run"
        // Everything root creates is made before any folder is handed to the server's user:
        // that user (the server, or another run's server) could otherwise plant links in it.
        //
        // Who may log in: as root, the server runs as another OS user and logins are checked
        // by the kernel (peer, mapped from root only), so nothing running as the server's user
        // can log in as rlskit's roles, and no password exists to steal. Not as root, the
        // server runs as this user: after the first login (peer) every login needs a password
        // of this run's (scram-sha-256, two secrets: postgres's never gives the admin's).
        let passwords = options.bootstrap != nil && runAs == nil
        let secret = passwords ? try Self.randomSecret() : nil
        let projectSecret = passwords ? try Self.randomSecret() : nil
        var fromTemplate = false
        var prepared = false
        var templateFolder: String?
        var writing: DispatchGroup?
        var ready: ClusterTemplate?
        var initdbTemplate: ClusterTemplate?
        var files = ServerFiles(folder: made, admin: options.bootstrap?.superuser, passwords: passwords)
        files.logins = options.bootstrap?.logins ?? []
        do {
            if let runAs {
                // The server runs as that user: every folder above the cluster must let it through.
                var dir = (base as NSString).standardizingPath
                while dir != "/" && !dir.isEmpty {
                    var st = stat()
                    if stat(dir, &st) == 0, st.st_mode & S_IXOTH == 0, st.st_uid != runAs.uid {
                        throw LocalClusterError(
                            "the server runs as user \(runAs.name), which cannot enter \(dir): set TMPDIR to a folder it can reach, such as /tmp",
                            configuration: true)
                    }
                    dir = (dir as NSString).deletingLastPathComponent
                }
                guard chmod(made, 0o755) == 0 else {
                    throw LocalClusterError("cannot open \(made) to the server's user")
                }
            }
            trace("folders")
            // Whatever is made in the folder is made under the exit lock, as it was created: a
            // signal's cleanup otherwise removes the folder while an entry is being added.
            // (pg_config is asked first: spawning takes the lock too.) Creating intermediate
            // folders would otherwise make the removed folder again.
            let needsLayout = !options.extensionFiles.isEmpty || !options.preloadLibraries.isEmpty
            let layout = needsLayout ? ExtensionOverlay.layout(bin: bin) : nil
            let (overlay, modules) = try Self.locked {
                (
                    try ExtensionOverlay.prepare(
                        root: made + "/install", bin: bin, files: options.extensionFiles,
                        preload: options.preloadLibraries, trusted: options.trustedExtensions, layout: layout),
                    try Self.copyModules(options.serverModules, into: made + "/lib")
                )
            }
            preloaded = overlay.preload + options.serverModules.keys.sorted()
            // 1 MB WAL segments: the first segment is most of what a cached template copies.
            // The data folder's own pg_hba.conf is never read (hba_file points at ours).
            let initdb = [
                "-D", data, "-U", options.bootstrap?.superuser ?? "postgres", "-E", "UTF8", "--locale=C",
                "-N", "--no-instructions", "--wal-segsize=1", "-A", "reject",
            ]
            let cached =
                options.bootstrap != nil
                ? options.clusterCache.map { ClusterTemplate(root: $0, bin: bin, initdb: initdb) } : nil
            (templateFolder, initdbTemplate) = (cached?.folder, cached)
            if let prepare = options.prepare, let cached {
                ready = cached.prepared(prepare.key + "\u{0}" + Self.shape(options))
            }
            trace("overlay and modules")
            try Self.locked {
                for dir in [data, run] {
                    guard mkdir(dir, 0o700) == 0 else {
                        throw LocalClusterError("cannot create \(dir) (errno \(errno))")
                    }
                }
            }
            func copied(_ template: ClusterTemplate?) -> Bool {
                guard let template, template.isUsable else { return false }
                if (try? TreeCopy.copy(
                    template.data, into: data, owner: runAs.map { ($0.uid, $0.gid) },
                    gate: { ClusterRegistry.shared.exiting.withLock { _ in } })) != nil
                {
                    return true
                }
                // Half copied: start again from an empty folder.
                try? Self.locked {
                    TreeRemoval.remove(data)
                    _ = mkdir(data, 0o700)
                }
                return false
            }
            if copied(ready) {
                (fromTemplate, prepared, templateFolder) = (true, true, ready?.folder)
            } else if copied(cached) {
                fromTemplate = true
            } else {
                try Self.locked {
                    TreeRemoval.remove(data)
                    guard mkdir(data, 0o700) == 0 else {
                        throw LocalClusterError("cannot create \(data) (errno \(errno))")
                    }
                    if let runAs, chown(data, runAs.uid, runAs.gid) != 0 {
                        throw LocalClusterError("cannot give \(data) to user \(runAs.name) (errno \(errno))")
                    }
                }
                try Self.run(bin + "/initdb", initdb, as: runAs, log: made + "/initdb.log", in: made, child: child)
                // Kept before anything else touches it: the next run copies it instead of initdb.
                writing = cached?.saveBeside(
                    from: data, staging: made + "/cache-copy",
                    gate: { ClusterRegistry.shared.exiting.withLock { _ in } })
            }
            trace(fromTemplate ? "data copied from the cached template" : "initdb")
            for dir in [data, run] {
                if let runAs, chown(dir, runAs.uid, runAs.gid) != 0 {
                    throw LocalClusterError("cannot give \(dir) to user \(runAs.name) (errno \(errno))")
                }
            }
            var conf = """

                # rlskit throwaway cluster: socket only, no durability (the directory is deleted anyway)
                listen_addresses = ''
                unix_socket_directories = \(Self.confQuoted(run))
                unix_socket_permissions = 0700
                fsync = off
                synchronous_commit = off
                full_page_writes = off
                log_min_messages = warning
                logging_collector = off
                hba_file = \(Self.confString(files.hba))
                ident_file = \(Self.confString(files.ident))

                """
            let preload = overlay.preload + modules
            if !preload.isEmpty {
                conf += "shared_preload_libraries = '\(preload.joined(separator: ","))'\n"
            }
            for (k, v) in options.settings.sorted(by: { $0.key < $1.key }) { conf += "\(k) = \(v)\n" }
            try Self.locked { try files.install(initdbConf: data, extra: conf, boot: true) }
            serverPID = try Self.spawnServer(
                overlay.server, data: data, config: files.conf, as: runAs, log: made + "/server.log", in: made,
                child: child)
        } catch {
            if let cleanup = ClusterRegistry.shared.remove(registration) { cleanup() }
            throw error
        }
        let host = "host=\(ConnectionString.quoted(run)) port=5432 dbname=postgres"
        func password(_ s: String?) -> String { s.map { " password=" + ConnectionString.quoted($0) } ?? "" }
        self.password = projectSecret
        isPrepared = prepared
        let building = !prepared && ready != nil
        cacheWrite = building ? DispatchGroup() : writing
        connectionString = ConnectionString(host + " user=postgres" + password(projectSecret))
        // The admin's sessions see only the catalogs by name: a search path stored on the database
        // (`alter database postgres set search_path = public, pg_catalog`, which postgres may do)
        // cannot put the project's views or operators in front of them.
        adminConnectionString =
            options.bootstrap.map {
                ConnectionString(
                    host + " user=" + $0.superuser + " options=" + ConnectionString.quoted(Self.adminOptions)
                        + password(secret))
            } ?? connectionString
        do {
            try waitUntilReady(timeout: options.startTimeout)
            trace("server started")
            if let bootstrap = options.bootstrap {
                // The first login is the kernel-checked one; then, without root, passwords only.
                let boot = ConnectionString(host + " user=" + bootstrap.superuser)
                try Self.createRoles(
                    bootstrap, on: boot, adminPassword: secret, password: projectSecret, setup: !prepared)
                if passwords {
                    try Self.locked { try files.install(initdbConf: nil, extra: nil, boot: false) }
                    try Self.reloadConfiguration(on: adminConnectionString)
                }
            }
        } catch {
            stop()
            // A template that does not start as it should: dropped, so the next run makes another.
            if fromTemplate, let templateFolder {
                TreeRemoval.remove(templateFolder)
                throw LocalClusterError(
                    "the cached cluster template could not be used (\(error)); it is removed: run again")
            }
            throw error
        }
        trace("roles")
        if building, let ready, let prepare = options.prepare, let initdbTemplate, let group = cacheWrite {
            Self.build(ready, from: initdbTemplate, after: writing, options: options, prepare: prepare, group: group)
        }
        if !options.extensionFiles.isEmpty {
            overlayNote.withLock { $0 = ExtensionOverlay.note(self, root: made + "/install") }
        }
    }

    deinit { stop() }

    /// Makes `ready` on another thread while this run goes on: a cluster of its own from the
    /// initdb template (once that is saved), `prepare.install`, a clean shutdown, then kept.
    /// Any failure only means the next run builds it again.
    static func build(
        _ ready: ClusterTemplate, from initdb: ClusterTemplate, after saving: DispatchGroup?, options: Options,
        prepare: Prepare, group: DispatchGroup
    ) {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            saving?.wait()
            guard initdb.isUsable else { return }
            var o = options
            o.prepare = nil
            guard let c = try? LocalCluster(options: o) else { return }
            defer { c.stop() }
            guard c.cacheWrite == nil, (try? prepare.install(c)) != nil, c.shutDownCleanly() else { return }
            ready.save(from: c.directory + "/data")
        }
    }

    /// A fast shutdown (SIGINT: a checkpoint, then exit), so that the data folder can be kept.
    func shutDownCleanly() -> Bool {
        guard let pid = childProcess.pid.withLock({ $0 > 0 ? $0 : nil }), kill(pid, SIGINT) == 0 else { return false }
        let deadline = Date().addingTimeInterval(30)
        while childProcess.isRunning {
            if Date() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// What else a prepared template's content depends on: the extensions offered, the
    /// libraries and settings the server runs with, the roles made at bootstrap.
    static func shape(_ o: Options) -> String {
        var parts = o.extensionFiles.sorted { $0.key < $1.key }.map { $0.key + "=" + ClusterTemplate.hash($0.value) }
        parts += o.preloadLibraries + ["|"] + o.trustedExtensions.sorted() + ["|"]
        parts += o.serverModules.sorted { $0.key < $1.key }.map { $0.key + "=" + ClusterTemplate.hash($0.value) }
        parts += o.settings.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }
        parts += [o.bootstrap?.superuser ?? "", o.bootstrap?.setup ?? ""] + (o.bootstrap?.logins ?? [])
        return ClusterTemplate.hash(parts.joined(separator: "\u{0}"))
    }

    /// Runs `body` holding the exit lock, so that a signal's cleanup waits for it.
    static func locked<T>(_ body: () throws -> T) throws -> T {
        try ClusterRegistry.shared.exiting.withLock { _ in try body() }
    }

    static let adminOptions = "-c search_path=pg_catalog,pg_temp"

    /// RLSKIT_TRACE: how long each step of a cold start took, on standard error.
    static let tracing = ProcessInfo.processInfo.environment["RLSKIT_TRACE"] != nil
    nonisolated(unsafe) static var traceClock = Date()

    /// How to reach the server as `postgres` from a shell, with no secret in the text: a
    /// connection string without the password and, when the server needs one, a password
    /// file (0600, this process's user) for `PGPASSFILE`.
    public func shellAccess() throws -> (connection: String, passFile: String?) {
        let plain = "host=\(ConnectionString.quoted(directory + "/run")) port=5432 dbname=postgres user=postgres"
        guard let password else { return (plain, nil) }
        let path = directory + "/pgpass"
        unlink(path)
        try Self.writePrivate(path, "*:*:*:postgres:\(password)\n", owner: nil)
        return (plain, path)
    }

    /// Returns once the cached cluster template a first run writes is in place (`stop` waits
    /// for it anyway; a run started before then runs initdb).
    public func waitForCacheWrite() { cacheWrite?.wait() }

    /// Whether this run is writing a template (tests).
    public var cacheWriteForTests: DispatchGroup? { cacheWrite }

    /// Stops the server and deletes the directory. Safe to call more than once. Runs under the
    /// same lock as the signal path, so a signal never ends the process half-way through.
    public func stop() {
        // The cache's copy is read from the folder stop removes.
        cacheWrite?.wait()
        ClusterRegistry.shared.exiting.withLock { _ in
            if let cleanup = ClusterRegistry.shared.remove(registration) { cleanup() }
        }
    }

    /// Leaves the server running after this process ends (nothing stops or deletes it any more);
    /// returns the pid to stop it with.
    @discardableResult
    public func detach() -> Int32 {
        cacheWrite?.wait()
        if ClusterRegistry.shared.remove(registration) != nil { Watchdog.release(child: childProcess, keep: true) }
        return serverPID
    }

    /// True while the server process runs (not after stop, which reaps it).
    public var isRunning: Bool { childProcess.isRunning }

    private func waitUntilReady(timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let info = adminConnectionString.raw
        while Date() < deadline {
            if PQping(info) == PQPING_OK { return }
            if !isRunning {
                throw LocalClusterError("the server did not start: " + Self.lastLines(of: directory + "/server.log"))
            }
            usleep(2_000)
        }
        throw LocalClusterError(
            "the server did not accept connections within \(Int(timeout)) s: "
                + Self.lastLines(of: directory + "/server.log"))
    }

    /// Immediate shutdown (SIGQUIT) is safe here: nothing in the cluster is kept.
    static func terminate(child: ChildProcess, directory: String) {
        defer { Watchdog.release(child: child, keep: false) }
        let pid = child.pid.withLock { p in
            defer { p = 0 }
            return p
        }
        if pid > 0, kill(pid, SIGQUIT) == 0 {
            var status: Int32 = 0
            for _ in 0..<5000 {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid || (r < 0 && errno == ECHILD) { break }
                usleep(1_000)
            }
        }
        // A child of the child (initdb's bootstrap backend) or the watchdog may still be
        // writing or removing: try again until the folder is gone, for up to a second.
        for _ in 0..<100 {
            TreeRemoval.remove(directory)
            var st = stat()
            if lstat(directory, &st) != 0 { break }
            usleep(10_000)
        }
    }
}

/// Runs `body` with a fresh cluster and always stops it afterwards.
public func withLocalCluster<T>(options: LocalCluster.Options = .init(), _ body: (LocalCluster) throws -> T) throws -> T
{
    let cluster = try LocalCluster(options: options)
    defer { cluster.stop() }
    return try body(cluster)
}

public struct LocalClusterError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The user's setup is at fault (TMPDIR, the server user), not the server.
    public let isConfiguration: Bool
    init(_ message: String, configuration: Bool = false) {
        self.message = message
        isConfiguration = configuration
    }
    public var description: String { message }
}
