import Foundation
import Postgres
import RLSKit

/// Where a report goes: standard output, or `--output FILE` (checked before any work is done).
struct OutputTarget {
    let path: String?

    init(_ path: String?) throws {
        self.path = path
        guard let path else { return }
        guard !path.isEmpty else { throw ConfigurationError("--output is empty: give a file path") }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw ConfigurationError("cannot write \(path): it is a directory") }
            if !fm.isWritableFile(atPath: path) { throw ConfigurationError("cannot write \(path): permission denied") }
        } else {
            let dir = (path as NSString).deletingLastPathComponent
            let parent = dir.isEmpty ? "." : dir
            if !fm.fileExists(atPath: parent, isDirectory: &isDir) || !isDir.boolValue {
                throw ConfigurationError("cannot write \(path): directory \(parent) does not exist")
            }
            if !fm.isWritableFile(atPath: parent) { throw ConfigurationError("cannot write \(path): permission denied") }
        }
    }

    var isFile: Bool { path != nil }

    func write(_ text: String) throws {
        guard let path else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        var isDir: ObjCBool = false
        let special = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            && ((try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) ?? .typeRegular) != .typeRegular
        // Regular files are replaced atomically; /dev/stdout, pipes and devices are written in place.
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: special ? [] : .atomic) } catch {
            throw ConfigurationError("cannot write \(path): \((error as NSError).localizedDescription)")
        }
    }
}

extension DatabaseTarget {
    /// Commands that read an existing database refuse to invent an empty throwaway one.
    static func requireGiven(_ args: ParsedArguments, command: String) throws {
        if args.value("database-url") == nil && !ConnectionString.environmentNamesDatabase() {
            throw ConfigurationError("\(command) needs a database: give --database-url URL or set DATABASE_URL (or PGHOST/PGDATABASE)")
        }
    }
}
