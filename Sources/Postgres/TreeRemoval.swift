import Foundation

/// Deletes a folder tree without ever following a link: every step is relative to an open
/// folder descriptor, and a folder is entered only through `O_NOFOLLOW | O_DIRECTORY`. The
/// server's OS user owns parts of the tree and may swap a folder for a link at any moment;
/// then the link itself is removed, never what it points to.
public enum TreeRemoval {
    /// Removes `path` and everything under it. Returns false when something could not be removed.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return unlink(path) == 0 || errno == ENOENT }
        let emptied = removeContents(of: fd)
        close(fd)
        return rmdir(path) == 0 && emptied
    }

    /// Empties the open folder `fd` (which stays open).
    static func removeContents(of fd: Int32, depth: Int = 0) -> Bool {
        guard depth < 256 else { return false }
        var ok = true
        // Repeat: entries created while listing (the server still writing) are removed next round.
        for _ in 0..<3 {
            let names = entries(fd)
            if names.isEmpty { return ok }
            ok = true
            for name in names {
                var st = stat()
                guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                if st.st_mode & S_IFMT == S_IFDIR {
                    let sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if sub < 0 {
                        // Swapped for a link or a file since fstatat: unlink whatever is there now.
                        if unlinkat(fd, name, 0) != 0 && errno != ENOENT { ok = false }
                        continue
                    }
                    if !removeContents(of: sub, depth: depth + 1) { ok = false }
                    close(sub)
                    if unlinkat(fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT {
                        // Swapped for a link after emptying: remove the link.
                        if unlinkat(fd, name, 0) != 0 && errno != ENOENT { ok = false }
                    }
                } else if unlinkat(fd, name, 0) != 0 && errno != ENOENT {
                    ok = false
                }
            }
        }
        return ok && entries(fd).isEmpty
    }

    static func entries(_ fd: Int32) -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let d = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(d) }
        rewinddir(d)
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
