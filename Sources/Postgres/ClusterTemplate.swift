import Foundation

/// initdb's output for one server build and one set of arguments, kept in a private cache
/// folder. initdb writes the same catalog every time and costs most of a cold start; copying
/// its output costs a few milliseconds. It holds no password: the first login is checked by
/// the kernel (peer).
struct ClusterTemplate {
    /// Bumped when what a template holds changes.
    static let format = 2
    let folder: String
    var data: String { folder + "/data" }

    init(folder: String) { self.folder = folder }

    /// The template of this one's initdb output with `what` done on it (`LocalCluster.Prepare`).
    func prepared(_ what: String) -> ClusterTemplate {
        ClusterTemplate(folder: folder + "-ready-" + Self.hash(what))
    }

    init(root: String, bin: String, initdb: [String]) {
        var st = stat()
        let server = stat(bin + "/postgres", &st) == 0 ? "\(st.st_size)-\(st.st_mtim.tv_sec)-\(st.st_ino)" : "?"
        // Paths differ per run: only the arguments' shape counts.
        let args = initdb.enumerated().map { $0.offset > 0 && initdb[$0.offset - 1] == "-D" ? "DATA" : $0.element }
        let key = "\(Self.format)\u{0}\(bin)\u{0}\(server)\u{0}" + args.joined(separator: "\u{0}")
        folder = root + "/cluster-" + Self.hash(key)
    }

    /// A complete template of ours that no one else could have written.
    var isUsable: Bool { Self.isPrivate(folder, directory: true) && Self.isPrivate(data, directory: true) }

    /// Copies `source` (initdb's output, not yet used) in; a failure (full disk, a link in the
    /// tree) only means the next run runs initdb again. Two runs saving at once: one wins whole.
    func save(from source: String) {
        let root = (folder as NSString).deletingLastPathComponent
        if mkdir(root, 0o700) != 0 && errno != EEXIST { return }
        guard Self.isPrivate(root, directory: true) else { return }
        Self.removeAbandoned(in: root)
        let tmp = folder + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(tmp, 0o700) == 0 else { return }
        var done = false
        defer { if !done { TreeRemoval.remove(tmp) } }
        guard mkdir(tmp + "/data", 0o700) == 0,
            (try? TreeCopy.copy(source, into: tmp + "/data", owner: (geteuid(), getegid()))) != nil
        else { return }
        done = rename(tmp, folder) == 0
    }

    /// `save` without making the run wait for the disk the cache is on: `source` is copied
    /// beside it first (`staging`, in the run's own folder, in memory where it can be), and
    /// that copy is written to the cache on another thread. Wait on the result before
    /// `staging`'s folder goes.
    func saveBeside(from source: String, staging: String, gate: () -> Void) -> DispatchGroup {
        let writing = DispatchGroup()
        guard mkdir(staging, 0o700) == 0, (try? TreeCopy.copy(source, into: staging, gate: gate)) != nil else {
            return writing
        }
        writing.enter()
        let template = self
        Thread.detachNewThread {
            defer { writing.leave() }
            template.save(from: staging)
            TreeRemoval.remove(staging)
        }
        return writing
    }

    /// Half-saved templates of runs that were killed while saving (`<name>.tmp-<pid>-<n>`, that
    /// pid gone): removed, so that a killed run leaves nothing behind for long.
    static func removeAbandoned(in root: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            let parts = name.components(separatedBy: ".tmp-")
            guard parts.count == 2, let pid = Int32(parts[1].split(separator: "-").first ?? ""), pid > 0,
                kill(pid, 0) != 0 && errno == ESRCH, isPrivate(root + "/" + name, directory: true)
            else { continue }
            TreeRemoval.remove(root + "/" + name)
        }
    }

    static func isPrivate(_ path: String, directory: Bool) -> Bool { PrivatePath.check(path, directory: directory) }

    /// FNV-1a, 64 bits: names a cache entry, nothing more.
    static func hash(_ s: String) -> String { hash(bytes: s.utf8) }

    static func hash(_ d: Data) -> String { hash(bytes: d) }

    static func hash<C: Sequence<UInt8>>(bytes: C) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }
}

/// What this process may trust on disk: a real folder or file (no link) of its own user's that
/// no one else may read or write, as rlskit makes them (0700, 0600). A checkout, a copy or an
/// unpacked archive leaves group and others some bits (0755, 0644): a cache that arrived that way
/// is never used, however its owner came to be this user.
public enum PrivatePath {
    public static func check(_ path: String, directory: Bool) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return (directory ? kind == S_IFDIR : kind == S_IFREG) && st.st_uid == geteuid()
            && st.st_mode & 0o077 == 0
    }
}
