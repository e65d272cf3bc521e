import Foundation
import Synchronization

// What the throwaway cluster needs from this machine: a safe temporary folder, the server
// programs, the user to run them as.
extension LocalCluster {
    /// TMPDIR (default /tmp), checked before anything starts: the path goes into
    /// postgresql.conf, the connection string and the watchdog's line-based pipe, so a quote,
    /// newline or space there could change what they say.
    static func temporaryBase(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        var base = env["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? memoryFolder() ?? "/tmp"
        guard base.hasPrefix("/") else {
            throw LocalClusterError(
                "TMPDIR is a relative path: set it to an absolute one, such as /tmp", configuration: true)
        }
        if base.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control || $0.properties.isWhitespace
                || "'\"\\`$,".unicodeScalars.contains($0)
        }) {
            throw LocalClusterError(
                "TMPDIR holds a quote, backslash, comma, space or control character: set it to a plain absolute path, such as /tmp",
                configuration: true)
        }
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        // The socket, <base>/rlskit-pg-XXXXXX/run/.s.PGSQL.5432, must fit in sockaddr_un (107 bytes).
        let limit = 107 - "/rlskit-pg-XXXXXX/run/.s.PGSQL.5432".utf8.count
        guard base.utf8.count <= limit else {
            throw LocalClusterError(
                "TMPDIR is longer than \(limit) bytes, too long for the server's socket path: set it to a shorter path, such as /tmp",
                configuration: true)
        }
        return base
    }

    /// /dev/shm when it is a shared, sticky folder in memory with room to spare: a throwaway
    /// cluster is never kept, and on disk its thousand small files cost most of a cold start.
    static func memoryFolder(_ path: String = "/dev/shm", room: UInt64 = 1 << 30) -> String? {
        var st = stat()
        var fs = statvfs()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, st.st_mode & S_ISVTX != 0,
            st.st_mode & 0o777 == 0o777, access(path, W_OK | X_OK) == 0, statvfs(path, &fs) == 0,
            UInt64(fs.f_bavail) * UInt64(fs.f_frsize) >= room
        else { return nil }
        return path
    }

    /// A postgresql.conf string value holding one path.
    static func confString(_ path: String) -> String {
        "'" + path.replacingAll("\\", with: "\\\\").replacingAll("'", with: "''") + "'"
    }

    /// A postgresql.conf string value: quotes and backslashes doubled, the directory itself
    /// double-quoted so a comma could not split the socket list.
    static func confQuoted(_ path: String) -> String {
        "'\"" + path.replacingAll("\\", with: "\\\\").replacingAll("'", with: "''").replacingAll("\"", with: "\"\"")
            + "\"'"
    }

    // MARK: Processes

    struct ServerUser {
        let name: String
        let uid: uid_t
        let gid: gid_t
    }

    static func serverUser() throws -> ServerUser? {
        guard geteuid() == 0 else { return nil }
        let name =
            ProcessInfo.processInfo.environment["RLSKIT_SERVER_USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgres"
        guard let pw = getpwnam(name) else {
            throw LocalClusterError(
                "PostgreSQL refuses to run as root and there is no user '\(name)' to run it: create one (useradd --system \(name)) or set RLSKIT_SERVER_USER",
                configuration: true)
        }
        return ServerUser(name: name, uid: pw.pointee.pw_uid, gid: pw.pointee.pw_gid)
    }

    /// PATH, then `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin.
    public static func findBinDirectory() throws -> String {
        let fm = FileManager.default
        func has(_ dir: String) -> Bool {
            fm.isExecutableFile(atPath: dir + "/initdb") && fm.isExecutableFile(atPath: dir + "/postgres")
        }
        let env = ProcessInfo.processInfo.environment
        if let d = env["RLSKIT_PG_BINDIR"], !d.isEmpty {
            if has(d) { return d }
            throw LocalClusterError(
                "RLSKIT_PG_BINDIR=\(d) holds no initdb and postgres: point it at PostgreSQL's bin directory",
                configuration: true)
        }
        for dir in (env["PATH"] ?? "").split(separator: ":").map(String.init) {
            let initdb = dir + "/initdb"
            if fm.isExecutableFile(atPath: initdb) {
                let real =
                    (try? fm.destinationOfSymbolicLink(atPath: initdb)).map { $0.hasPrefix("/") ? $0 : dir + "/" + $0 }
                    ?? initdb
                let realDir = (real as NSString).deletingLastPathComponent
                if has(realDir) { return realDir }
                if has(dir) { return dir }
            }
        }
        if let out = try? capture("pg_config", ["--bindir"]), has(out) { return out }
        let root = "/usr/lib/postgresql"
        let versions = ((try? fm.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int($0) }.sorted(by: >)
        for v in versions where has("\(root)/\(v)/bin") { return "\(root)/\(v)/bin" }
        throw LocalClusterError(
            "PostgreSQL server programs (initdb, postgres) not found: install them with 'apt-get install postgresql' or set RLSKIT_PG_BINDIR"
        )
    }

    static func capture(_ tool: String, _ args: [String]) throws -> String {
        try Spawn.output("/usr/bin/env", [tool] + args, environment: ProcessInfo.processInfo.environment)
    }
}

// Files root makes for the server before handing anything to its user.
extension LocalCluster {
    /// 32 random bytes as hex: the run's password.
    static func randomSecret() throws -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LocalClusterError("cannot read /dev/urandom") }
        defer { close(fd) }
        guard read(fd, &bytes, bytes.count) == bytes.count else { throw LocalClusterError("cannot read /dev/urandom") }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A new file only `owner` (else this process's user) can read; refuses to follow or reuse a link.
    static func writePrivate(_ path: String, _ text: String, owner: ServerUser?) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LocalClusterError("cannot create \(path) (errno \(errno))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw LocalClusterError("cannot write \(path)") }
        if let owner, fchown(fd, owner.uid, owner.gid) != 0 {
            throw LocalClusterError("cannot give \(path) to user \(owner.name) (errno \(errno))")
        }
    }

    /// Writes each module into `dir` (made here, readable by all, writable by this process only);
    /// returns their paths for shared_preload_libraries.
    static func copyModules(_ modules: [String: Data], into dir: String) throws -> [String] {
        guard !modules.isEmpty else { return [] }
        guard mkdir(dir, 0o755) == 0 else { throw LocalClusterError("cannot create \(dir) (errno \(errno))") }
        return try modules.sorted(by: { $0.key < $1.key }).map { name, data in
            guard !name.contains("/"), !name.contains(",") else { throw LocalClusterError("bad module name \(name)") }
            let target = dir + "/" + name
            let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw LocalClusterError("cannot create \(target) (errno \(errno))") }
            defer { close(fd) }
            let ok = data.withUnsafeBytes { write(fd, $0.baseAddress, data.count) == data.count }
            guard ok, fchmod(fd, 0o644) == 0 else { throw LocalClusterError("cannot write \(target)") }
            return target
        }
    }
}
