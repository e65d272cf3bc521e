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

    /// Starts a server program as `user`, its output going to `log`.
    static func launch(_ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String) throws
        -> Process
    {
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
    static func launchRecorded(
        _ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String, child: ChildProcess
    ) throws -> Process {
        try ClusterRegistry.shared.exiting.withLock { _ in
            let p = try launch(path, args, as: user, log: log, in: dir)
            child.pid.withLock { $0 = p.processIdentifier }
            Watchdog.tell(child, "pid \(p.processIdentifier)")
            return p
        }
    }

    static func run(
        _ path: String, _ args: [String], as user: ServerUser?, log: String, in dir: String, child: ChildProcess
    ) throws {
        let p = try launchRecorded(path, args, as: user, log: log, in: dir, child: child)
        p.waitUntilExit()
        child.pid.withLock { $0 = 0 }
        guard p.terminationStatus == 0 else {
            throw LocalClusterError("\((path as NSString).lastPathComponent) failed: " + lastLines(of: log))
        }
    }

    static func spawnServer(
        _ path: String, data: String, config: String, as user: ServerUser?, log: String, in dir: String,
        child: ChildProcess
    ) throws -> Int32 {
        try launchRecorded(
            path, ["-D", data, "-c", "config_file=" + config], as: user, log: log, in: dir, child: child
        )
        .processIdentifier
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
    /// Write end of the watchdog's pipe; -1 when there is none.
    let watchdog = Mutex<Int32>(-1)
}
