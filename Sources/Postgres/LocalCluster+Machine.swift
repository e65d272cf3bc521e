import Foundation
import Synchronization

// What the throwaway cluster needs from this machine: a safe temporary folder, the server
// programs, the user to run them as.
extension LocalCluster {
    /// TMPDIR (default /tmp), checked before anything starts: the path goes into
    /// postgresql.conf, the connection string and the watchdog's line-based pipe, so a quote,
    /// newline or space there could change what they say.
    static func temporaryBase(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        var base = env["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
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
        // The socket, <base>/rlskit-pg-XXXXXX/.s.PGSQL.5432, must fit in sockaddr_un (107 bytes).
        let limit = 107 - "/rlskit-pg-XXXXXX/.s.PGSQL.5432".utf8.count
        guard base.utf8.count <= limit else {
            throw LocalClusterError(
                "TMPDIR is longer than \(limit) bytes, too long for the server's socket path: set it to a shorter path, such as /tmp",
                configuration: true)
        }
        return base
    }

    /// A postgresql.conf string value: quotes and backslashes doubled, the directory itself
    /// double-quoted so a comma could not split the socket list.
    static func confQuoted(_ path: String) -> String {
        "'\"" + path.replacingAll("\\", with: "\\\\").replacingAll("'", with: "''").replacingAll("\"", with: "\"\"")
            + "\"'"
    }

    // MARK: Processes

    struct ServerUser { let name: String; let uid: uid_t; let gid: gid_t }

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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw LocalClusterError("\(tool) failed") }
        return String(decoding: data, as: UTF8.self).trimmingWhitespace()
    }
}
