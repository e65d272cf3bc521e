import Foundation
import Postgres
import RLSKit

/// Where a report goes: standard output, or a file (checked before any work is done). A new
/// file is written atomically; an existing path (file, symlink, device, pipe) is written
/// through in place, never replaced.
struct OutputTarget {
    let path: String?

    init(_ path: String?, option: String = "output") throws {
        self.path = path
        guard let path else { return }
        guard !path.isEmpty else { throw ConfigurationError("--\(option) is empty: give a file path") }
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
            writeOut(text)
            return
        }
        // Whatever is buffered for stdout goes first; a path that is stdout itself (/dev/stdout,
        // /proc/self/fd/1) is written through the same buffer so nothing overwrites anything.
        fflush(nil)
        var target = stat(), out = stat()
        if stat(path, &target) == 0, fstat(STDOUT_FILENO, &out) == 0, target.st_dev == out.st_dev, target.st_ino == out.st_ino {
            writeOut(text)
            return
        }
        // lstat, not stat: a symlink (even a dangling one) is written through, never replaced.
        // An existing file is rewritten in place, keeping its mode, owner and links; a new one
        // is written atomically.
        var st = stat()
        let exists = lstat(path, &st) == 0
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: exists ? [] : .atomic) } catch {
            throw ConfigurationError("cannot write \(path): \(Self.reason(error))")
        }
    }
}

extension OutputTarget {
    /// errno's words ("No space left on device") rather than Foundation's sentences.
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        switch ns.code {
        case NSFileWriteOutOfSpaceError: return String(cString: strerror(ENOSPC))
        case NSFileWriteNoPermissionError, NSFileReadNoPermissionError: return String(cString: strerror(EACCES))
        case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return String(cString: strerror(ENOENT))
        default: return ns.localizedDescription
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
