import Foundation
import Synchronization

// Starting initdb and the server, as another user when this process is root.
extension LocalCluster {
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

    /// Starts a server program as `user`, its output going to `log`; returns its pid.
    static func launch(_ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String) throws
        -> pid_t
    {
        let (exe, argv) = command(path, args, as: user)
        let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw LocalClusterError("cannot write \(log) (errno \(errno))") }
        defer { close(fd) }
        if let user { _ = fchown(fd, user.uid, user.gid) }
        return try Spawn.start(exe, argv, environment: childEnvironment, stdout: fd, stderr: fd, directory: dir)
    }

    /// Launches under the exit lock and records the pid before letting go, so a signal either
    /// comes before the child exists or finds it recorded (and the watchdog told).
    static func launchRecorded(
        _ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String, child: ChildProcess
    ) throws -> pid_t {
        try ClusterRegistry.shared.exiting.withLock { _ in
            let pid = try launch(path, args, as: user, log: log, in: dir)
            child.pid.withLock { $0 = pid }
            Watchdog.tell(child, "pid \(pid)")
            return pid
        }
    }

    static func run(
        _ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String, child: ChildProcess
    ) throws {
        let pid = try launchRecorded(path, args, as: user, log: log, in: dir, child: child)
        let code = Spawn.wait(pid)
        // Reaped: the pid may be another process's from now on, so a signal must not find it.
        child.pid.withLock { $0 = 0 }
        guard code == 0 else {
            throw LocalClusterError("\((path as NSString).lastPathComponent) failed: " + lastLines(of: log))
        }
    }

    static func spawnServer(
        _ path: String, data: String, config: String, as user: ServerUser?, log: String, in dir: String,
        child: ChildProcess
    ) throws -> Int32 {
        try launchRecorded(
            path, ["-D", data, "-c", "config_file=" + config], as: user, log: log, in: dir, child: child)
    }

    static func lastLines(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        return lines.suffix(2).joined(separator: " | ").trimmingWhitespace()
    }
}

/// The pid of the child a cluster is running now (initdb, then the server), 0 for none.
final class ChildProcess: Sendable {
    let pid = Mutex<Int32>(0)

    /// True while the recorded child runs; one that ended is reaped and forgotten (its pid may
    /// be reused), where a zombie would otherwise still answer kill(pid, 0).
    var isRunning: Bool {
        pid.withLock { p in
            guard p > 0 else { return false }
            var status: Int32 = 0
            let r = waitpid(p, &status, WNOHANG)
            if r == 0 { return true }
            if r == p || (r < 0 && errno == ECHILD) { p = 0 }
            return r < 0 && errno == EINTR
        }
    }
    /// Write end of the watchdog's pipe; -1 when there is none.
    let watchdog = Mutex<Int32>(-1)
    /// The watchdog's pid, reaped when it is released; 0 for none.
    let watchdogPID = Mutex<Int32>(0)
}
