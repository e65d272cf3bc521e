import Foundation

/// The server's configuration files, written by this process in the cluster's folder and never
/// in the data folder, which belongs to the server's OS user (who could swap a file there for a
/// link to one of root's). The server reads them through `config_file`, `hba_file`, `ident_file`.
struct ServerFiles {
    let folder: String
    /// The bootstrap superuser of `LocalCluster.Options.bootstrap`: who may log in is rlskit alone.
    /// Nil: trust.
    let admin: String?
    /// Not root: after the first login, passwords (scram-sha-256); as root, the kernel's word.
    let passwords: Bool
    /// Further roles rlskit logs in as (the kernel's word as root, else their per-run passwords).
    var logins: [String] = []
    var conf: String { folder + "/postgresql.conf" }
    var hba: String { folder + "/pg_hba.conf" }
    var ident: String { folder + "/pg_ident.conf" }

    /// With `data`, postgresql.conf: initdb's settings (read without following a link) and then
    /// `extra`. Always the login rules, for the first login (`boot`) or every later one.
    func install(initdbConf data: String?, extra: String?, boot: Bool) throws {
        if let data, let extra { try Self.replace(conf, try Self.readPlain(data, "postgresql.conf") + extra) }
        let me = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        let superuser = admin ?? "postgres"
        var rules = "# rlskit: who may log in to this throwaway server\n"
        if admin == nil {
            rules += "local all all trust\n"
        } else if !passwords {
            rules += "local all \(([superuser, "postgres"] + logins).joined(separator: ",")) peer map=rlskit\n"
            rules += "local all all reject\n"
        } else {
            if boot { rules += "local all \(superuser) peer map=rlskit\n" }
            rules += "local all all scram-sha-256\n"
        }
        try Self.replace(hba, rules)
        try Self.replace(ident, ([superuser, "postgres"] + logins).map { "rlskit \(me) \($0)\n" }.joined())
    }

    /// A regular file of the folder `dir`, opened without following a link.
    static func readPlain(_ dir: String, _ name: String) throws -> String {
        let d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard d >= 0 else { throw LocalClusterError("cannot open \(dir)") }
        defer { close(d) }
        let fd = openat(d, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw LocalClusterError("cannot read \(dir)/\(name) (errno \(errno))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size < 1 << 20 else {
            throw LocalClusterError("\(dir)/\(name) is not a plain file")
        }
        let size = Int(st.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var got = 0
        while got < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, size - got) }
            if n <= 0 { break }
            got += n
        }
        return String(decoding: bytes[0..<got], as: UTF8.self)
    }

    /// Writes `text` to a new file beside `path` and renames it over `path`: readable by the
    /// server's user, replaced whole (the server may be reading it at a reload).
    static func replace(_ path: String, _ text: String) throws {
        let tmp = path + ".new"
        unlink(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LocalClusterError("cannot create \(tmp) (errno \(errno))") }
        let bytes = Array(text.utf8)
        let ok = write(fd, bytes, bytes.count) == bytes.count && fchmod(fd, 0o644) == 0
        close(fd)
        guard ok, rename(tmp, path) == 0 else { throw LocalClusterError("cannot write \(path)") }
    }
}
