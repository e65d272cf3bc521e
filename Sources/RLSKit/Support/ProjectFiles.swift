import Foundation
import Synchronization

/// The files a project names for itself (a symbolic link in a migrations folder, a pgTAP
/// `\i`, a seed path in config.toml) are untrusted: rlskit, often running as root, would read
/// whatever they point at and could print part of it in an error. Once confined, every project
/// file must resolve inside a folder the user gave (the working directory, or a path on the
/// command line).
@_spi(CLI) public enum ProjectFiles {
    private static let roots = Mutex<[String]?>(nil)

    /// Confines reads to `paths` (resolved now); nil lifts it (the library's default).
    public static func confine(to paths: [String]?) {
        roots.withLock { $0 = paths.map { $0.compactMap(resolved) } }
    }

    /// The reason `path` may not be read, or nil when it may.
    public static func refusal(_ path: String) -> String? {
        guard let roots = roots.withLock({ $0 }) else { return nil }
        // Missing: where it would be, so that a missing file outside is refused as an existing
        // one is (the answer must not tell the project what exists there). Missing inside: the
        // caller says so.
        guard let real = resolved(path) ?? resolvedMissing(path) else { return nil }
        if roots.contains(where: { real == $0 || real.hasPrefix($0 == "/" ? "/" : $0 + "/") }) { return nil }
        // Where it points is not said: the answer would tell the project what exists outside.
        return "resolves outside the folders rlskit was given; it reads no file outside them"
    }

    /// Options naming a file rlskit writes: their folder is no folder given to read from.
    static let outputOptions: Set<String> = ["--output", "--junit", "--sarif", "--json", "--summary", "--html"]

    /// The roots for a run in `directory` with command-line `arguments`: the directory, and each
    /// argument that names an existing path (with its parent, where config.toml and seed.sql
    /// sit beside the migrations) unless it reaches there through a link inside the directory,
    /// which the project could have planted, or it is where a report goes (`--json FILE`).
    public static func roots(directory: String, arguments: [String]) -> [String] {
        var roots = [directory]
        for (i, arg) in arguments.enumerated() {
            if i > 0 && outputOptions.contains(arguments[i - 1]) { continue }
            if let name = arg.split(separator: "=", maxSplits: 1).first, arg.contains("="),
                outputOptions.contains(String(name))
            {
                continue
            }
            for candidate in [arg, arg.split(separator: "=", maxSplits: 1).last.map(String.init) ?? arg]
            where FileManager.default.fileExists(atPath: candidate)
                && !throughLink(candidate, inside: directory)
            {
                let absolute = candidate.hasPrefix("/") ? candidate : directory + "/" + candidate
                roots.append(absolute)
                roots.append((absolute as NSString).deletingLastPathComponent)
            }
        }
        return roots
    }

    /// Whether `path` passes through a symbolic link that sits inside `directory`.
    public static func throughLink(_ path: String, inside directory: String) -> Bool {
        let absolute = lexical(path.hasPrefix("/") ? path : directory + "/" + path)
        let base = lexical(directory)
        guard absolute.hasPrefix(base == "/" ? "/" : base + "/") else { return false }
        var walked = base
        for part in absolute.dropFirst(base.count).split(separator: "/") {
            walked += "/" + part
            var st = stat()
            if lstat(walked, &st) == 0, st.st_mode & S_IFMT == S_IFLNK { return true }
        }
        return false
    }

    /// The file's bytes, or an error naming the file when it is outside or unreadable.
    static func contents(_ path: String) throws -> Data {
        if let why = refusal(path) { throw ConfigurationError("\(path): \(why)") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the file")
        }
        return data
    }

    /// `.` and `..` taken away by their names alone (Foundation's standardizing follows links).
    static func lexical(_ path: String) -> String {
        var parts: [Substring] = []
        for p in path.split(separator: "/") where p != "." {
            if p == ".." { _ = parts.popLast() } else { parts.append(p) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Where a path that does not resolve (missing, or a link to nothing) would be: its deepest
    /// existing folder resolved, links on the way followed, the rest taken by name.
    static func resolvedMissing(_ path: String, depth: Int = 0) -> String? {
        guard depth < 40, path != "/", !path.isEmpty else { return nil }
        if let real = resolved(path) { return real }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let parent = (absolute as NSString).deletingLastPathComponent
        let name = (absolute as NSString).lastPathComponent
        var st = stat()
        if lstat(absolute, &st) == 0, st.st_mode & S_IFMT == S_IFLNK,
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: absolute)
        {
            return resolvedMissing(target.hasPrefix("/") ? target : parent + "/" + target, depth: depth + 1)
        }
        guard let base = resolvedMissing(parent, depth: depth + 1) else { return nil }
        return lexical(base + "/" + name)
    }

    static func resolved(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
