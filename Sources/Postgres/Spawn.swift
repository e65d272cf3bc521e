import Foundation

/// Child processes through posix_spawn. Foundation's Process waits for a child by polling its
/// run loop (about 50 ms a wait here), which a cold start pays on every tool it asks.
@_spi(CLI) public enum Spawn {
    /// Starts `path` with `args` and only `environment`; standard input, output and error are
    /// the descriptors given (nil: /dev/null), every other descriptor of ours is closed in the
    /// child, and it starts in `directory` when one is given. Returns its pid.
    static func start(
        _ path: String, _ args: [String], environment: [String: String], stdin: Int32? = nil,
        stdout: Int32? = nil, stderr: Int32? = nil, directory: String? = nil
    ) throws -> pid_t {
        let argv = ([path] + args).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            if let fd {
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        if let directory, let chdir = Self.chdir {
            let r = directory.withCString { chdir(&actions, $0) }
            guard r == 0 else { throw LocalClusterError("cannot run \(path) in \(directory)") }
        }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard r == 0 else {
            throw LocalClusterError("cannot run \(path): \(String(cString: strerror(r)))")
        }
        return pid
    }

    /// Waits for `pid` to end: its exit code, or 128 + the signal that ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        return exitCode(status)
    }

    /// The exit code in a waitpid status (128 + the signal when one ended it).
    static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs a tool and returns its standard output, trimmed; a failure throws the first line it
    /// wrote on standard error. Only the spawn holds the exit lock (no other child may inherit
    /// the pipes, where descriptors cannot be closed in the child), not the wait.
    public static func output(_ tool: String, _ args: [String], environment: [String: String]? = nil) throws
        -> String
    {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        let pid = try ClusterRegistry.shared.exiting.withLock { _ throws(LocalClusterError) -> pid_t in
            guard pipe(&out) == 0 else { throw LocalClusterError("cannot run \(tool): no pipe") }
            guard pipe(&err) == 0 else {
                close(out[0])
                close(out[1])
                throw LocalClusterError("cannot run \(tool): no pipe")
            }
            for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            defer {
                close(out[1])
                close(err[1])
            }
            do {
                return try start(
                    tool, args, environment: environment ?? LocalCluster.childEnvironment, stdout: out[1],
                    stderr: err[1])
            } catch let e as LocalClusterError {
                close(out[0])
                close(err[0])
                throw e
            } catch { throw LocalClusterError("cannot run \(tool)") }
        }
        let (data, errors) = readBoth(out[0], err[0])
        let code = wait(pid)
        guard code == 0 else {
            let first = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init)
            throw LocalClusterError(first ?? "\((tool as NSString).lastPathComponent) failed (exit \(code))")
        }
        return String(decoding: data, as: UTF8.self).trimmingWhitespace()
    }

    /// Reads two pipes to their ends at once (a child filling one while we wait on the other
    /// would block forever), then closes them.
    static func readBoth(_ a: Int32, _ b: Int32) -> (Data, Data) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var results = [Data(), Data()]
        var buf = [UInt8](repeating: 0, count: 16384)
        while fds.contains(where: { $0.fd >= 0 }) {
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = read(fds[i].fd, &buf, buf.count)
                if n > 0 {
                    results[i].append(contentsOf: buf[0..<n])
                } else if n == 0 || errno != EINTR {
                    close(fds[i].fd)
                    fds[i].fd = -1
                }
            }
        }
        for f in fds where f.fd >= 0 { close(f.fd) }
        return (results[0], results[1])
    }

    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    // glibc's extensions (2.34 and 2.29), which Swift's Glibc module does not declare.
    static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let chdir: ChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    static func symbol<T>(_ name: String) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let p = dlsym(handle, name) else { return nil }
        return unsafeBitCast(p, to: T.self)
    }
}
