import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `rlskit cache`: what the private cache folder holds (cluster templates, the sandbox's
/// server module), and `rlskit cache clear` to empty it.
enum CacheCommand {
    static let spec = CommandSpec(
        name: "cache",
        summary: "show or clear the cache of cluster templates and the sandbox module",
        positionals: "[clear]",
        maxPositionals: 1,
        details: """
            The throwaway server starts from a copy of initdb's output kept in
            $XDG_CACHE_HOME/rlskit (else ~/.cache/rlskit), one template per PostgreSQL build,
            next to rlskit's sandbox module compiled for it. The folder is used only while no
            other user can write it (or a folder above it), and an entry only while no one
            else may read or write it (0700, 0600, as rlskit makes them: a cache from a checkout
            or an archive is built again). 'rlskit cache' lists it;
            'rlskit cache clear' removes it. RLSKIT_NO_CACHE=1 starts every server with initdb.
            """,
        options: [])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        guard args.positionals.isEmpty || args.positionals == ["clear"] else {
            throw UsageError(message: "unknown cache action '\(args.positionals[0])': use clear", usage: spec.usage)
        }
        let folder: String
        do { folder = try Sandbox.privateCacheFolder() } catch {
            throw ConfigurationError(
                "no private cache folder (\(error)): set XDG_CACHE_HOME to a folder only you can write")
        }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        if args.positionals == ["clear"] {
            for e in entries { TreeRemoval.remove(folder + "/" + e) }
            say("cleared \(folder) (\(entries.count) entr\(entries.count == 1 ? "y" : "ies"))")
            return .success
        }
        say("cache: \(folder)")
        if entries.isEmpty { say("  (empty)") }
        for e in entries {
            let kind =
                e.hasPrefix("cluster-")
                ? (e.contains("-ready-") ? "cluster template with the stand-in" : "cluster template (initdb)")
                : e.hasPrefix("rlskit_sandbox-") ? "sandbox module" : "other"
            say("  \(e)  \(kind), \(size(folder + "/" + e) / 1024) KiB")
        }
        return .success
    }

    static func size(_ path: String) -> Int {
        var st = stat()
        guard lstat(path, &st) == 0 else { return 0 }
        guard st.st_mode & S_IFMT == S_IFDIR else { return Int(st.st_size) }
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).reduce(0) {
            $0 + size(path + "/" + $1)
        }
    }
}
