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
            let out = try? Spawn.output(tool, ["--bindir", "--sharedir", "--pkglibdir"])
        else { return nil }
        let lines = out.split(separator: "\n").map(String.init)
        guard lines.count == 3, lines.allSatisfy({ $0.hasPrefix("/") }) else { return nil }
        return Layout(bin: lines[0], share: lines[1], lib: lines[2])
    }

    /// The tail of each directory below the prefix all three share, or nil when they share only `/`.
    static func tails(_ l: Layout) -> Layout? {
        let parts = [l.bin, l.share, l.lib].map {
            ($0 as NSString).standardizingPath.split(separator: "/").map(String.init)
        }
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
    /// `layout` is `layout(bin:)`, asked for by the caller beforehand when it holds the exit
    /// lock (pg_config is spawned under that lock).
    static func prepare(
        root: String, bin: String, files: [String: String], preload: [String], trusted: [String] = [],
        layout known: Layout?? = nil
    ) throws -> Prepared {
        var p = Prepared(server: bin + "/postgres")
        guard !files.isEmpty || !preload.isEmpty, let real = known ?? layout(bin: bin) else { return p }
        p.preload = preload.filter { FileManager.default.fileExists(atPath: real.lib + "/" + $0 + ".so") }
        if !files.isEmpty, let server = try build(root: root, real: real, files: files, trusted: Set(trusted)) {
            p.server = server
            p.root = root
        }
        return p
    }

    static func build(root: String, real: Layout, files: [String: String], trusted: Set<String> = []) throws
        -> String?
    {
        guard let tail = tails(real) else { return nil }
        let binDir = root + "/" + tail.bin
        let shareDir = root + "/" + tail.share
        let libDir = root + "/" + tail.lib
        let server = binDir + "/postgres"
        // Plain system calls: a few hundred links, and Foundation's are slow enough to show
        // in every cold check.
        func mkdirs(_ path: String) throws {
            var made = ""
            for part in path.split(separator: "/") {
                made += "/" + part
                if mkdir(made, 0o755) != 0 && errno != EEXIST { throw failure("cannot create \(made)") }
            }
        }
        func symlinkOrThrow(_ target: String, _ path: String) throws {
            if symlink(target, path) != 0 { throw failure("cannot link \(path)") }
        }
        try mkdirs(binDir)
        // Across file systems a hard link fails: a copy works as well, just slower.
        if link(real.bin + "/postgres", server) != 0 {
            do { try FileManager.default.copyItem(atPath: real.bin + "/postgres", toPath: server) } catch {
                throw failure("cannot copy the server binary")
            }
        }
        try mkdirs((libDir as NSString).deletingLastPathComponent)
        try symlinkOrThrow(real.lib, libDir)
        try mkdirs(shareDir + "/extension")
        for entry in entries(real.share) where entry != "extension" {
            try symlinkOrThrow(real.share + "/" + entry, shareDir + "/" + entry)
        }
        let realExt = real.share + "/extension"
        let realFiles = entries(realExt)
        for entry in realFiles {
            // A later line wins in a control file, so appending makes the extension trusted. Its
            // script then runs as the bootstrap superuser, which owns what it creates, also for
            // one that needs no superuser (pgTAP): the role that asked keeps no default privilege
            // over those objects, as where supautils creates every privileged extension as its admin.
            if entry.hasSuffix(".control"), trusted.contains(String(entry.dropLast(".control".count))),
                let text = try? String(contentsOfFile: realExt + "/" + entry, encoding: .utf8)
            {
                guard
                    FileManager.default.createFile(
                        atPath: shareDir + "/extension/" + entry,
                        contents: Data((text + "\nsuperuser = true\ntrusted = true\n").utf8))
                else { throw failure("cannot write the extension file \(entry)") }
                continue
            }
            try symlinkOrThrow(realExt + "/" + entry, shareDir + "/extension/" + entry)
        }
        // The server's own extension wins over an offered one of the same name.
        let own = Set(realFiles.filter { $0.hasSuffix(".control") }.map { String($0.dropLast(".control".count)) })
        func extensionName(_ file: String) -> String {
            file.hasSuffix(".control")
                ? String(file.dropLast(".control".count))
                : file.range(of: "--").map { String(file[..<$0.lowerBound]) } ?? file
        }
        for (name, text) in files where !own.contains(extensionName(name)) {
            guard !name.contains("/"),
                FileManager.default.createFile(atPath: shareDir + "/extension/" + name, contents: Data(text.utf8))
            else {
                throw failure("cannot write the extension file \(name)")
            }
        }
        return server
    }

    static func failure(_ what: String) -> LocalClusterError {
        LocalClusterError("cannot build the extension overlay: \(what) (\(String(cString: strerror(errno))))")
    }

    /// Names in a directory, `.` and `..` aside.
    static func entries(_ dir: String) -> [String] {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return TreeRemoval.entries(fd)
    }

    /// Nil when the running server reads the overlay's SHAREDIR, else why the files are missing.
    static func note(_ cluster: LocalCluster, root: String) -> String? {
        let missing =
            "this PostgreSQL install's layout is not one rlskit can extend, so its stand-in extensions are not available"
        guard FileManager.default.fileExists(atPath: root),
            let conn = try? PostgresConnection(cluster.adminConnectionString),
            let rows = try? conn.query("select setting from pg_config where name = 'SHAREDIR'").rows,
            let dir: String = try? rows.first?.decode("setting")
        else { return missing }
        return (dir as NSString).standardizingPath.hasPrefix((root as NSString).standardizingPath + "/") ? nil : missing
    }
}
