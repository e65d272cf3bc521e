import Foundation

/// Copies a folder tree of regular files and folders, every step relative to open folder
/// descriptors and never through a link: anything else in the tree (a link, a socket) stops
/// the copy. With `owner`, the copies are given to that user as they are made.
enum TreeCopy {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `gate` runs before each entry is made: a cluster passes the exit lock, so a signal's
    /// cleanup never races a copy that goes on making files after it.
    static func copy(
        _ source: String, into target: String, owner: (uid: uid_t, gid: gid_t)? = nil, gate: () -> Void = {}
    ) throws {
        let src = open(source, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard src >= 0 else { throw Failure(description: "cannot open \(source) (errno \(errno))") }
        defer { close(src) }
        let dst = open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dst >= 0 else { throw Failure(description: "cannot open \(target) (errno \(errno))") }
        defer { close(dst) }
        try copy(src, dst, owner: owner, depth: 0, gate: gate)
    }

    static func copy(_ src: Int32, _ dst: Int32, owner: (uid: uid_t, gid: gid_t)?, depth: Int, gate: () -> Void)
        throws
    {
        guard depth < 64 else { throw Failure(description: "folders nested too deep") }
        for name in TreeRemoval.entries(src) {
            gate()
            var st = stat()
            guard fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw Failure(description: "\(name) vanished")
            }
            let mode = st.st_mode & 0o7777
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                guard mkdirat(dst, name, 0o700) == 0 else { throw Failure(description: "cannot create \(name)") }
                let s = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                let d = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                defer {
                    if s >= 0 { close(s) }
                    if d >= 0 { close(d) }
                }
                guard s >= 0, d >= 0 else { throw Failure(description: "cannot open \(name)") }
                try copy(s, d, owner: owner, depth: depth + 1, gate: gate)
                if let owner, fchown(d, owner.uid, owner.gid) != 0 {
                    throw Failure(description: "cannot chown \(name)")
                }
                guard fchmod(d, mode) == 0 else { throw Failure(description: "cannot chmod \(name)") }
            case S_IFREG:
                try copyFile(src, dst, name, mode: mode, size: Int(st.st_size), owner: owner, seen: st)
            default:
                throw Failure(description: "\(name) is not a regular file or folder")
            }
        }
    }

    static func copyFile(
        _ src: Int32, _ dst: Int32, _ name: String, mode: mode_t, size: Int, owner: (uid: uid_t, gid: gid_t)?,
        seen: stat
    )
        throws
    {
        // Never blocking (a file swapped for a FIFO since fstatat), and the very file looked at:
        // one link only, so no hard link to a file elsewhere gets its contents copied.
        let s = openat(src, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard s >= 0 else { throw Failure(description: "cannot open \(name)") }
        defer { close(s) }
        var st = stat()
        guard fstat(s, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 1, st.st_dev == seen.st_dev,
            st.st_ino == seen.st_ino
        else { throw Failure(description: "\(name) is not a plain file of its own (a hard link?)") }
        let d = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard d >= 0 else { throw Failure(description: "cannot create \(name)") }
        defer { close(d) }
        // In the kernel (sendfile); read/write where the file system refuses it.
        var left = size
        while left > 0 {
            let n = sendfile(d, s, nil, left)
            if n > 0 {
                left -= n
                continue
            }
            if n == 0 { break }
            guard errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP else {
                throw Failure(description: "cannot copy \(name) (errno \(errno))")
            }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let r = read(s, &buffer, buffer.count)
                if r < 0 && errno == EINTR { continue }
                guard r >= 0 else { throw Failure(description: "cannot read \(name)") }
                if r == 0 { break }
                guard write(d, buffer, r) == r else { throw Failure(description: "cannot write \(name)") }
            }
            break
        }
        if let owner, fchown(d, owner.uid, owner.gid) != 0 { throw Failure(description: "cannot chown \(name)") }
        guard fchmod(d, mode) == 0 else { throw Failure(description: "cannot chmod \(name)") }
    }
}
