import Foundation
import Glibc
@_spi(CLI) import RLSKit

/// What `check --watch` looks at: every file under some paths, by name, size and change time.
/// inotify wakes it on Linux; the fingerprint decides, so a missed or spurious event costs
/// nothing but a look (and without inotify it looks every 300 ms).
struct FileWatch {
    let paths: [String]
    private(set) var last: [String: String] = [:]

    init(_ paths: [String]) {
        self.paths = paths
        last = Self.fingerprint(paths)
    }

    /// Blocks until a file under the paths changes, then returns the changed names (sorted).
    mutating func next() -> [String] {
        while true {
            let fd = Self.watch(paths)
            defer { if fd >= 0 { close(fd) } }
            if fd >= 0 {
                // A save while the last run ran came before the watch: look before waiting.
                if Self.fingerprint(paths) == last {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    _ = poll(&p, 1, 2_000)
                }
                // A save is often several writes: let them land (an editor's land within a few
                // ms; one that lands later only means another run).
                usleep(20_000)
            } else {
                usleep(300_000)
            }
            let now = Self.fingerprint(paths)
            if now != last {
                let changed = Set(now.keys).union(last.keys).filter { now[$0] != last[$0] }.sorted()
                last = now
                return changed
            }
        }
    }

    /// Name → "size mtime" of every regular file under `paths`; hidden names (the CLI's
    /// `.temp`, editors' swap files) are left out. Links are not followed.
    static func fingerprint(_ paths: [String]) -> [String: String] {
        var out: [String: String] = [:]
        for p in paths { walk(p, &out) }
        return out
    }

    private static func walk(_ path: String, _ out: inout [String: String]) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            out[path] = "\(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        case S_IFDIR:
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where !name.hasPrefix(".") {
                walk(path + "/" + name, &out)
            }
        default: break
        }
    }

    /// An inotify descriptor watching every folder under `paths` (and each path's parent, for
    /// a file that is replaced); -1 where there is none.
    private static func watch(_ paths: [String]) -> Int32 {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return -1 }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB)
        var folders: [String] = []
        for p in paths {
            let parent = FilePath.parent(p)
            folders.append(parent.isEmpty ? "." : parent)
            collectFolders(p, &folders)
        }
        for f in Set(folders) { _ = inotify_add_watch(fd, f, mask) }
        return fd
    }

    private static func collectFolders(_ path: String, _ out: inout [String]) {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return }
        out.append(path)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where !name.hasPrefix(".") {
            collectFolders(path + "/" + name, &out)
        }
    }
}
