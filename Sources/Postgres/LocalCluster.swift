import CLibPQ
import Foundation
import Synchronization

/// A throwaway PostgreSQL server: a fresh cluster in a new temporary directory, reachable only
/// through a Unix socket inside that directory, with trust authentication. `stop()` (or
/// `withLocalCluster`) ends the server and deletes the directory.
///
/// PostgreSQL refuses to run as root; when started as root the server runs as an unprivileged
/// user (`postgres` unless `RLSKIT_SERVER_USER` names another) who is given the directory.
public final class LocalCluster: Sendable {
    public let directory: String
    /// A keyword connection string for the superuser `postgres`.
    public let connectionString: ConnectionString
    public let binDirectory: String
    let serverPID: Int32
    let registration: Int
    let childProcess: ChildProcess
    /// Libraries preloaded (those of `Options.preloadLibraries` the server has).
    public let preloaded: [String]
    let overlayNote = Mutex<String?>(nil)
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
        public init() {}
    }

    /// Creates, starts and waits for the cluster.
    public init(options: Options = Options()) throws {
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
        let (made, registered) = try ClusterRegistry.shared.exiting.withLock { _ throws(LocalClusterError) -> (String, Int) in
            // The watchdog comes first, so even a kill -9 right after mkdtemp is covered.
            Watchdog.start(child: child)
            guard let made = template.withCString({ p -> String? in
                let buf = strdup(p)!
                defer { free(buf) }
                return mkdtemp(buf).map { String(cString: $0) }
            }) else {
                throw LocalClusterError("cannot create a temporary directory under \(base) (\(String(cString: strerror(errno)))): set TMPDIR to a writable directory", configuration: true)
            }
            Watchdog.tell(child, "dir " + made)
            return (made, ClusterRegistry.shared.add { Self.terminate(child: child, directory: made) })
        }
        directory = made
        registration = registered
        let data = made + "/data"
        do {
            if let runAs {
                guard chown(made, runAs.uid, runAs.gid) == 0 else { throw LocalClusterError("cannot give \(made) to user \(runAs.name) (errno \(errno))") }
                // The server runs as that user: every folder above the cluster must let it through.
                var dir = (base as NSString).standardizingPath
                while dir != "/" && !dir.isEmpty {
                    var st = stat()
                    if stat(dir, &st) == 0, st.st_mode & S_IXOTH == 0, st.st_uid != runAs.uid {
                        throw LocalClusterError("the server runs as user \(runAs.name), which cannot enter \(dir): set TMPDIR to a folder it can reach, such as /tmp", configuration: true)
                    }
                    dir = (dir as NSString).deletingLastPathComponent
                }
            }
            try Self.run(bin + "/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "-N", "--no-instructions"],
                         as: runAs, log: made + "/initdb.log", in: made, child: child)
            var conf = """

            # rlskit throwaway cluster: socket only, no durability (the directory is deleted anyway)
            listen_addresses = ''
            unix_socket_directories = \(Self.confQuoted(made))
            unix_socket_permissions = 0700
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            log_min_messages = warning
            logging_collector = off

            """
            let overlay = try ExtensionOverlay.prepare(root: made + "/install", bin: bin, files: options.extensionFiles, preload: options.preloadLibraries)
            preloaded = overlay.preload
            if !overlay.preload.isEmpty { conf += "shared_preload_libraries = '\(overlay.preload.joined(separator: ","))'\n" }
            for (k, v) in options.settings.sorted(by: { $0.key < $1.key }) { conf += "\(k) = \(v)\n" }
            let confPath = data + "/postgresql.conf"
            guard let h = FileHandle(forWritingAtPath: confPath) else { throw LocalClusterError("cannot write \(confPath)") }
            h.seekToEndOfFile()
            h.write(Data(conf.utf8))
            h.closeFile()
            serverPID = try Self.spawnServer(overlay.server, data: data, as: runAs, log: made + "/server.log", in: made, child: child)
        } catch {
            if let cleanup = ClusterRegistry.shared.remove(registration) { cleanup() }
            throw error
        }
        connectionString = ConnectionString("host=\(ConnectionString.quoted(made)) port=5432 user=postgres dbname=postgres")
        do { try waitUntilReady(timeout: options.startTimeout) } catch {
            stop()
            throw error
        }
        if !options.extensionFiles.isEmpty { overlayNote.withLock { $0 = ExtensionOverlay.note(self, root: made + "/install") } }
    }

    deinit { stop() }

    /// Stops the server and deletes the directory. Safe to call more than once. Runs under the
    /// same lock as the signal path, so a signal never ends the process half-way through.
    public func stop() {
        ClusterRegistry.shared.exiting.withLock { _ in
            if let cleanup = ClusterRegistry.shared.remove(registration) { cleanup() }
        }
    }

    /// Leaves the server running after this process ends (nothing stops or deletes it any more);
    /// returns the pid to stop it with.
    @discardableResult
    public func detach() -> Int32 {
        if let _ = ClusterRegistry.shared.remove(registration) { Watchdog.release(child: childProcess, keep: true) }
        return serverPID
    }

    /// True while the server process exists.
    public var isRunning: Bool { kill(serverPID, 0) == 0 }

    private func waitUntilReady(timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let info = connectionString.raw
        while Date() < deadline {
            if PQping(info) == PQPING_OK { return }
            if !isRunning {
                throw LocalClusterError("the server did not start: " + Self.lastLines(of: directory + "/server.log"))
            }
            usleep(2_000)
        }
        throw LocalClusterError("the server did not accept connections within \(Int(timeout)) s: " + Self.lastLines(of: directory + "/server.log"))
    }

    /// Immediate shutdown (SIGQUIT) is safe here: nothing in the cluster is kept.
    static func terminate(child: ChildProcess, directory: String) {
        defer { Watchdog.release(child: child, keep: false) }
        let pid = child.pid.withLock { p in defer { p = 0 }; return p }
        if pid > 0, kill(pid, SIGQUIT) == 0 {
            var status: Int32 = 0
            for _ in 0..<5000 {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid || (r < 0 && errno == ECHILD) { break }
                usleep(1_000)
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// TMPDIR (default /tmp), checked before anything starts: the path goes into
    /// postgresql.conf, the connection string and the watchdog's line-based pipe, so a quote,
    /// newline or space there could change what they say.
    static func temporaryBase(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        var base = env["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        guard base.hasPrefix("/") else {
            throw LocalClusterError("TMPDIR is a relative path: set it to an absolute one, such as /tmp", configuration: true)
        }
        if base.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isWhitespace || "'\"\\`$,".unicodeScalars.contains($0) }) {
            throw LocalClusterError("TMPDIR holds a quote, backslash, comma, space or control character: set it to a plain absolute path, such as /tmp", configuration: true)
        }
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        // The socket, <base>/rlskit-pg-XXXXXX/.s.PGSQL.5432, must fit in sockaddr_un (107 bytes).
        let limit = 107 - "/rlskit-pg-XXXXXX/.s.PGSQL.5432".utf8.count
        guard base.utf8.count <= limit else {
            throw LocalClusterError("TMPDIR is longer than \(limit) bytes, too long for the server's socket path: set it to a shorter path, such as /tmp", configuration: true)
        }
        return base
    }

    /// A postgresql.conf string value: quotes and backslashes doubled, the directory itself
    /// double-quoted so a comma could not split the socket list.
    static func confQuoted(_ path: String) -> String {
        "'\"" + path.replacingAll("\\", with: "\\\\").replacingAll("'", with: "''").replacingAll("\"", with: "\"\"") + "\"'"
    }

    // MARK: Processes

    struct ServerUser { let name: String; let uid: uid_t; let gid: gid_t }

    static func serverUser() throws -> ServerUser? {
        guard geteuid() == 0 else { return nil }
        let name = ProcessInfo.processInfo.environment["RLSKIT_SERVER_USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgres"
        guard let pw = getpwnam(name) else {
            throw LocalClusterError("PostgreSQL refuses to run as root and there is no user '\(name)' to run it: create one (useradd --system \(name)) or set RLSKIT_SERVER_USER", configuration: true)
        }
        return ServerUser(name: name, uid: pw.pointee.pw_uid, gid: pw.pointee.pw_gid)
    }

    /// PATH, then `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin.
    public static func findBinDirectory() throws -> String {
        let fm = FileManager.default
        func has(_ dir: String) -> Bool { fm.isExecutableFile(atPath: dir + "/initdb") && fm.isExecutableFile(atPath: dir + "/postgres") }
        let env = ProcessInfo.processInfo.environment
        if let d = env["RLSKIT_PG_BINDIR"], !d.isEmpty {
            if has(d) { return d }
            throw LocalClusterError("RLSKIT_PG_BINDIR=\(d) holds no initdb and postgres: point it at PostgreSQL's bin directory", configuration: true)
        }
        for dir in (env["PATH"] ?? "").split(separator: ":").map(String.init) {
            let initdb = dir + "/initdb"
            if fm.isExecutableFile(atPath: initdb) {
                let real = (try? fm.destinationOfSymbolicLink(atPath: initdb)).map { $0.hasPrefix("/") ? $0 : dir + "/" + $0 } ?? initdb
                let realDir = (real as NSString).deletingLastPathComponent
                if has(realDir) { return realDir }
                if has(dir) { return dir }
            }
        }
        if let out = try? capture("pg_config", ["--bindir"]), has(out) { return out }
        let root = "/usr/lib/postgresql"
        let versions = ((try? fm.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int($0) }.sorted(by: >)
        for v in versions where has("\(root)/\(v)/bin") { return "\(root)/\(v)/bin" }
        throw LocalClusterError("PostgreSQL server programs (initdb, postgres) not found: install them with 'apt-get install postgresql' or set RLSKIT_PG_BINDIR")
    }

    static func capture(_ tool: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw LocalClusterError("\(tool) failed") }
        return String(decoding: data, as: UTF8.self).trimmingWhitespace()
    }

    /// `setpriv` switches user without forking, so the pid we hold is the program's own.
    static func command(_ path: String, _ args: [String], as user: ServerUser?) -> (String, [String]) {
        guard let user else { return (path, args) }
        return ("/usr/bin/setpriv", ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--", path] + args)
    }

    /// The server and initdb get a small environment: nothing of the caller's (database
    /// URLs, keys) reaches a process that may run as another user.
    static var childEnvironment: [String: String] {
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"]
        if let tz = ProcessInfo.processInfo.environment["TZ"] { env["TZ"] = tz }
        return env
    }

    /// Starts a server program as `user`, its output going to `log`.
    static func launch(_ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String) throws -> Process {
        let (exe, argv) = command(path, args, as: user)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        if let user { _ = chown(log, user.uid, user.gid) }
        let out = FileHandle(forWritingAtPath: log)
        defer { try? out?.close() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = argv
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        p.environment = childEnvironment
        do { try p.run() } catch { throw LocalClusterError("cannot run \(exe): \(error.localizedDescription)") }
        return p
    }

    /// Launches under the exit lock and records the pid before letting go, so a signal either
    /// comes before the child exists or finds it recorded (and the watchdog told).
    static func launchRecorded(_ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String, child: ChildProcess) throws -> Process {
        try ClusterRegistry.shared.exiting.withLock { _ in
            let p = try launch(path, args, as: user, log: log, in: dir)
            child.pid.withLock { $0 = p.processIdentifier }
            Watchdog.tell(child, "pid \(p.processIdentifier)")
            return p
        }
    }

    static func run(_ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String, child: ChildProcess) throws {
        let p = try launchRecorded(path, args, as: user, log: log, in: dir, child: child)
        p.waitUntilExit()
        child.pid.withLock { $0 = 0 }
        guard p.terminationStatus == 0 else {
            throw LocalClusterError("\((path as NSString).lastPathComponent) failed: " + lastLines(of: log))
        }
    }

    static func spawnServer(_ path: String, data: String, as user: ServerUser?, log: String, in dir: String, child: ChildProcess) throws -> Int32 {
        try launchRecorded(path, ["-D", data], as: user, log: log, in: dir, child: child).processIdentifier
    }

    static func lastLines(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        return lines.suffix(2).joined(separator: " | ").trimmingWhitespace()
    }

    // MARK: Signals

    /// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT stop every running cluster, delete its directory and exit
    /// with 128 + signal. Call once, early, from an executable.
    public static func stopAll() {
        for cleanup in ClusterRegistry.shared.removeAll() { cleanup() }
    }

    /// Stops every cluster and exits. Waits for a signal handler that is already cleaning up,
    /// so the process never ends half-way through removing a cluster.
    public static func exitProcess(_ code: Int32) -> Never {
        ClusterRegistry.shared.exiting.withLock { _ in
            stopAll()
            exit(code)
        }
    }

    public static func stopClustersOnSignals() {
        ClusterRegistry.shared.installSignalHandlers()
    }
}

/// Runs `body` with a fresh cluster and always stops it afterwards.
public func withLocalCluster<T>(options: LocalCluster.Options = .init(), _ body: (LocalCluster) throws -> T) throws -> T {
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

/// The pid of the child a cluster is running now (initdb, then the server), 0 for none.
final class ChildProcess: Sendable {
    let pid = Mutex<Int32>(0)
    /// Write end of the watchdog's pipe; -1 when there is none.
    let watchdog = Mutex<Int32>(-1)
}

/// A small shell process that outlives a crash of this one. It is told the cluster's
/// directory and each child's pid over a pipe; if the pipe closes without "done" or "keep"
/// (this process died: kill -9, a crash), it stops that child — only if its command line
/// names this cluster's data directory, so a stale or reused pid is never signalled — and
/// deletes the directory.
enum Watchdog {
    static let script = """
        dir=; pid=
        while read -r word arg; do
          case "$word" in
            done|keep) exit 0 ;;
            dir) dir=$arg ;;
            pid) pid=$arg ;;
          esac
        done
        [ -n "$dir" ] || exit 0
        if [ -n "$pid" ] && tr '\\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/data"; then
          kill -QUIT "$pid" 2>/dev/null
          i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
        fi
        rm -rf "$dir"
        """

    /// Call under the exit lock: our other children are spawned under it too, so none can
    /// inherit the write end between pipe() and marking it close-on-exec.
    static func start(child: ChildProcess) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, "rlskit-watchdog"]
        p.standardInput = FileHandle(fileDescriptor: fds[0], closeOnDealloc: false)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.environment = LocalCluster.childEnvironment
        do { try p.run() } catch {
            close(fds[0]); close(fds[1])
            return
        }
        close(fds[0])
        child.watchdog.withLock { $0 = fds[1] }
    }

    static func tell(_ child: ChildProcess, _ line: String) {
        // One line per message: a line break inside it would be read as another command.
        guard !line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return }
        child.watchdog.withLock { fd in
            guard fd >= 0, readerAlive(fd) else { return }
            _ = (line + "\n").withCString { write(fd, $0, strlen($0)) }
        }
    }

    /// Writing to a pipe nobody reads raises SIGPIPE, which would end the process: look first.
    static func readerAlive(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&p, 1, 0) >= 0 && p.revents & Int16(POLLERR | POLLHUP) == 0
    }

    static func release(child: ChildProcess, keep: Bool) {
        let fd = child.watchdog.withLock { fd in defer { fd = -1 }; return fd }
        guard fd >= 0 else { return }
        if readerAlive(fd) {
            let word = keep ? "keep\n" : "done\n"
            _ = word.withCString { write(fd, $0, strlen($0)) }
        }
        close(fd)
    }
}

/// Cleanups for the clusters of this process, so a signal can stop them all.
final class ClusterRegistry: Sendable {
    static let shared = ClusterRegistry()
    private let state = Mutex<(next: Int, cleanups: [Int: @Sendable () -> Void])>((0, [:]))
    private let sources = Mutex<[any DispatchSourceSignal]>([])
    /// Held by whoever is ending the process.
    let exiting = Mutex<Void>(())

    func add(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        state.withLock { s in
            s.next += 1
            s.cleanups[s.next] = cleanup
            return s.next
        }
    }

    func remove(_ id: Int) -> (@Sendable () -> Void)? {
        state.withLock { $0.cleanups.removeValue(forKey: id) }
    }

    func removeAll() -> [@Sendable () -> Void] {
        state.withLock { s in
            defer { s.cleanups.removeAll() }
            return Array(s.cleanups.values)
        }
    }

    func installSignalHandlers() {
        sources.withLock { list in
            guard list.isEmpty else { return }
            for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
                signal(sig, SIG_IGN)
                let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                src.setEventHandler { LocalCluster.exitProcess(128 + sig) }
                src.resume()
                list.append(src)
            }
        }
    }
}
