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
        guard let real = resolved(path) else { return nil }  // missing: the caller says so
        if roots.contains(where: { real == $0 || real.hasPrefix($0 == "/" ? "/" : $0 + "/") }) { return nil }
        return "resolves to \(real), outside the folders rlskit was given; it reads no file outside them"
    }

    /// The file's bytes, or an error naming the file when it is outside or unreadable.
    public static func contents(_ path: String) throws -> Data {
        if let why = refusal(path) { throw ConfigurationError("\(path): \(why)") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the file")
        }
        return data
    }

    static func resolved(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
