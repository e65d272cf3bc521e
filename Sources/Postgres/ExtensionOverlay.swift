import Foundation

/// An "overlay install" in the cluster's directory, so extra extension files (stand-ins) can
/// sit next to the server's own without writing to the real installation.
///
/// PostgreSQL finds SHAREDIR (and with it `extension/`) and PKGLIBDIR relative to the path of
/// its own binary: it strips the compiled-in BINDIR's tail from the binary's directory and adds
/// the other directory's tail. So a hard link of the binary at `T/<bin tail>/postgres` (a
/// symlink would be resolved back to the real path) makes the server read `T/<share tail>`,
/// where every entry links to the real one except `extension/`, a folder of links plus ours.
enum ExtensionOverlay {
    struct Layout: Equatable {
        var bin: String, share: String, lib: String
    }

    /// The real directories, from the server's own `pg_config`.
    static func layout(bin: String) -> Layout? {
        let tool = bin + "/pg_config"
        guard FileManager.default.isExecutableFile(atPath: tool),
              let out = try? output(tool, ["--bindir", "--sharedir", "--pkglibdir"]) else { return nil }
        let lines = out.split(separator: "\n").map(String.init)
        guard lines.count == 3, lines.allSatisfy({ $0.hasPrefix("/") }) else { return nil }
        return Layout(bin: lines[0], share: lines[1], lib: lines[2])
    }

    /// The tail of each directory below the prefix all three share, or nil when they share only `/`.
    static func tails(_ l: Layout) -> Layout? {
        let parts = [l.bin, l.share, l.lib].map { ($0 as NSString).standardizingPath.split(separator: "/").map(String.init) }
        var common = 0
        while parts.allSatisfy({ $0.count > common + 1 && $0[common] == parts[0][common] }) { common += 1 }
        guard common > 0 else { return nil }
        let t = parts.map { $0[common...].joined(separator: "/") }
        return Layout(bin: t[0], share: t[1], lib: t[2])
    }

    struct Prepared {
        /// The server binary to run: the overlay's, else the real one.
        var server: String
        /// Set when the overlay was built (whether the server uses it is checked after start).
        var root: String?
        /// Libraries among those asked for that the server has.
        var preload: [String] = []
    }

    /// Builds the overlay under `root` when there are files to add. Without `pg_config` or with
    /// a layout this does not understand, the real binary runs (and the files are not there).
    static func prepare(root: String, bin: String, files: [String: String], preload: [String]) throws -> Prepared {
        var p = Prepared(server: bin + "/postgres")
        guard !files.isEmpty || !preload.isEmpty, let real = layout(bin: bin) else { return p }
        p.preload = preload.filter { FileManager.default.fileExists(atPath: real.lib + "/" + $0 + ".so") }
        if !files.isEmpty, let server = try build(root: root, real: real, files: files) {
            p.server = server
            p.root = root
        }
        return p
    }

    static func build(root: String, real: Layout, files: [String: String]) throws -> String? {
        guard let tail = tails(real) else { return nil }
        let fm = FileManager.default
        let binDir = root + "/" + tail.bin, shareDir = root + "/" + tail.share, libDir = root + "/" + tail.lib
        let server = binDir + "/postgres"
        do {
            try fm.createDirectory(atPath: binDir, withIntermediateDirectories: true)
            // Across file systems a hard link fails: a copy works as well, just slower.
            if link(real.bin + "/postgres", server) != 0 {
                try fm.copyItem(atPath: real.bin + "/postgres", toPath: server)
            }
            try fm.createDirectory(atPath: (libDir as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: libDir, withDestinationPath: real.lib)
            try fm.createDirectory(atPath: shareDir + "/extension", withIntermediateDirectories: true)
            for entry in try fm.contentsOfDirectory(atPath: real.share) where entry != "extension" {
                try fm.createSymbolicLink(atPath: shareDir + "/" + entry, withDestinationPath: real.share + "/" + entry)
            }
            let realExt = real.share + "/extension"
            for entry in (try? fm.contentsOfDirectory(atPath: realExt)) ?? [] where files[entry] == nil {
                try fm.createSymbolicLink(atPath: shareDir + "/extension/" + entry, withDestinationPath: realExt + "/" + entry)
            }
            for (name, text) in files {
                guard !name.contains("/"), fm.createFile(atPath: shareDir + "/extension/" + name, contents: Data(text.utf8)) else {
                    throw LocalClusterError("cannot write the extension file \(name) into \(shareDir)/extension")
                }
            }
        } catch let e as LocalClusterError {
            throw e
        } catch {
            throw LocalClusterError("cannot build the extension overlay in \(root): \(error.localizedDescription)")
        }
        return server
    }

    /// Nil when the running server reads the overlay's SHAREDIR, else why the files are missing.
    static func note(_ cluster: LocalCluster, root: String) -> String? {
        let missing = "this PostgreSQL install's layout is not one rlskit can extend, so its stand-in extensions are not available"
        guard FileManager.default.fileExists(atPath: root),
              let conn = try? PostgresConnection(cluster.connectionString),
              let rows = try? conn.query("select setting from pg_config where name = 'SHAREDIR'").rows,
              let dir: String = try? rows.first?.decode("setting") else { return missing }
        return (dir as NSString).standardizingPath.hasPrefix((root as NSString).standardizingPath + "/") ? nil : missing
    }

    static func output(_ tool: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.environment = LocalCluster.childEnvironment
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
