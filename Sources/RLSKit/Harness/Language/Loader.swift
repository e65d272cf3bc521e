import Foundation

/// Everything `rlskit test` was given, parsed before anything runs.
public struct HarnessInput: Sendable {
    var access: [AccessFile] = []
    var scenarios: [(file: String, scenarios: [Scenario])] = []
    public init() {}

    public var isEmpty: Bool { access.isEmpty && scenarios.isEmpty }
    /// At least one access file (`*.rls`): what `check`'s next-step line asks.
    @_spi(CLI) public var hasAccessFiles: Bool { !access.isEmpty }
}

public enum HarnessLoader {
    public static let extensions = ["rls", "scenario"]

    /// Files under the paths (folders recursively, name order) with our extensions.
    public static func files(_ paths: [String]) throws -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else {
                throw ConfigurationError("\(p): no such file or folder")
            }
            if isDir.boolValue {
                let items = (fm.enumerator(atPath: p)?.allObjects as? [String] ?? []).sorted()
                out += items.filter { extensions.contains(($0 as NSString).pathExtension) }.map {
                    (p as NSString).appendingPathComponent($0)
                }
            } else {
                guard extensions.contains((p as NSString).pathExtension) else {
                    throw ConfigurationError(
                        "\(p): not a test file: rlskit test reads access files (*.rls) and scenarios (*.scenario)")
                }
                out.append(p)
            }
        }
        return out
    }

    /// Reads and parses every file; the first mistake in any file stops everything.
    public static func load(_ paths: [String]) throws -> HarnessInput {
        var texts: [(path: String, text: String)] = []
        for f in try files(paths) {
            let data = try ProjectFiles.contents(f)
            guard let text = TextFile.decode(data) else {
                throw InputError(SourceLocation(file: f, line: 1), "not UTF-8 text: save the file as UTF-8")
            }
            texts.append((f, text))
        }
        return try parse(texts)
    }

    /// The access file and scenarios compiled into rlskit for its built-in schema (sql/tests).
    public static func builtIn() throws -> HarnessInput {
        try parse(
            BuiltInSQL.all.filter {
                $0.path.hasPrefix("tests/") && extensions.contains(($0.path as NSString).pathExtension)
            }
            .map { ("sql/" + $0.path, $0.contents) })
    }

    /// Parses files already read, in the order given.
    public static func parse(_ files: [(path: String, text: String)]) throws -> HarnessInput {
        var input = HarnessInput()
        var declared: [String: SourceLocation] = [:]
        for (f, text) in files {
            if f.hasSuffix(".rls") {
                let a = try AccessFile.parse(text, path: f)
                try checkDuplicates(a, against: &declared)
                input.access.append(a)
            } else {
                let s = try ScenarioFile.parse(text, path: f)
                if s.isEmpty {
                    throw InputError(
                        SourceLocation(file: f, line: 1), "no scenarios in this file: start one with 'scenario <title>'"
                    )
                }
                input.scenarios.append((f, s))
            }
        }
        return input
    }

    /// A table or bucket another file already declared; `declared` gathers every file's blocks.
    static func checkDuplicates(_ a: AccessFile, against declared: inout [String: SourceLocation]) throws(InputError) {
        for t in a.tables {
            if let p = declared["table " + t.qualifiedName] {
                throw InputError(t.location, "table \(t.qualifiedName) is already declared at \(p): keep one")
            }
        }
        for b in a.buckets {
            if let p = declared["bucket " + b.id] {
                throw InputError(b.location, "bucket \(b.id) is already declared at \(p): keep one")
            }
        }
        for t in a.tables { declared["table " + t.qualifiedName] = t.location }
        for b in a.buckets { declared["bucket " + b.id] = b.location }
    }
}

extension HarnessLoader {
    static func isFolder(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The `expose` lines of the access files under `paths` (see `AccessFile.exposure`).
    public static func exposure(_ paths: [String]) throws -> HarnessInput {
        var input = HarnessInput()
        for f in try files(paths) where f.hasSuffix(".rls") && !isFolder(f) {
            guard let text = TextFile.decode(try ProjectFiles.contents(f)) else { continue }
            input.access.append(try AccessFile.exposure(text, path: f))
        }
        return input
    }
}
