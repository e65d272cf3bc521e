import Foundation
import Synchronization

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
        guard
            let pid = try? Spawn.start(
                "/bin/sh", ["-c", script, "rlskit-watchdog"], environment: LocalCluster.childEnvironment,
                stdin: fds[0])
        else {
            close(fds[0])
            close(fds[1])
            return
        }
        close(fds[0])
        child.watchdog.withLock { $0 = fds[1] }
        child.watchdogPID.withLock { $0 = pid }
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
        let fd = child.watchdog.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { return }
        if readerAlive(fd) {
            let word = keep ? "keep\n" : "done\n"
            _ = word.withCString { write(fd, $0, strlen($0)) }
        }
        close(fd)
        // Told (or gone): it ends at once; reaped, so a long run of clusters leaves no zombies.
        let pid = child.watchdogPID.withLock { p in
            defer { p = 0 }
            return p
        }
        if pid > 0 { _ = Spawn.wait(pid) }
    }
}
