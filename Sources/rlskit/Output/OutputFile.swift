import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// Where a report goes: standard output, or a file (checked before any work is done). A new
/// file is written atomically; an existing path (file, symlink, device, pipe) is written
/// through in place, never replaced.
struct OutputTarget {
    let path: String?

    init(_ path: String?, option: String = "output") throws {
        self.path = path
        guard let path else { return }
        guard !path.isEmpty else { throw ConfigurationError("--\(option) is empty: give a file path") }
        // A report path the project reaches through a link of its own (out -> /etc) is not
        // written when it lands outside; other paths are the user's to choose.
        let existing = FileManager.default.fileExists(atPath: path) ? path : FilePath.parent(path)
        if ProjectFiles.throughLink(path, inside: FileManager.default.currentDirectoryPath),
            let why = ProjectFiles.refusal(existing.isEmpty ? "." : existing)
        {
            throw ConfigurationError("cannot write \(path): it \(why)")
        }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw ConfigurationError("cannot write \(path): it is a directory") }
            if !fm.isWritableFile(atPath: path) { throw ConfigurationError("cannot write \(path): permission denied") }
        } else {
            let dir = FilePath.parent(path)
            let parent = dir.isEmpty ? "." : dir
            if !fm.fileExists(atPath: parent, isDirectory: &isDir) || !isDir.boolValue {
                throw ConfigurationError("cannot write \(path): directory \(parent) does not exist")
            }
            if !fm.isWritableFile(atPath: parent) {
                throw ConfigurationError("cannot write \(path): permission denied")
            }
        }
    }

    var isFile: Bool { path != nil }

    /// `kind`: how standard output makes it safe (a report format escapes for itself).
    func write(_ text: String, as kind: OutputKind = .document) throws {
        guard let path else {
            writeOut(text, as: kind)
            return
        }
        // Whatever is buffered for stdout goes first; a path that is stdout itself (/dev/stdout,
        // /proc/self/fd/1) is written through the same buffer so nothing overwrites anything.
        fflush(nil)
        var target = stat()
        var out = stat()
        if stat(path, &target) == 0, fstat(STDOUT_FILENO, &out) == 0, target.st_dev == out.st_dev,
            target.st_ino == out.st_ino
        {
            writeOut(text, as: kind)
            return
        }
        // lstat, not stat: a symlink (even a dangling one) is written through, never replaced.
        // An existing file is rewritten in place, keeping its mode, owner and links; a new one
        // is written atomically.
        var st = stat()
        if lstat(path, &st) == 0 { return try Self.rewrite(path, text) }
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw ConfigurationError("cannot write \(path): \(Self.reason(error))")
        }
    }

    /// Writes through an existing path with plain system calls, so a failure is errno's
    /// words ("Input/output error" for /proc/version) rather than Foundation's error numbers.
    static func rewrite(_ path: String, _ text: String) throws {
        try systemWrite(text, to: path, flags: O_TRUNC)  // O_CREAT in systemWrite: a dangling symlink
    }

    /// `text` written through `path` opened with `flags` (O_TRUNC, O_APPEND), by system calls;
    /// a failure names `name` (default: the path) and errno's words.
    static func systemWrite(_ text: String, to path: String, flags: Int32, name: String? = nil) throws {
        func fail() -> ConfigurationError {
            ConfigurationError("cannot write \(name ?? path): \(String(cString: strerror(errno)))")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0o666)
        guard fd >= 0 else { throw fail() }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let e = fail()
                close(fd)
                throw e
            }
            done += n
        }
        guard close(fd) == 0 else { throw fail() }
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
            throw ConfigurationError(
                "\(command) needs a database: give --database-url URL or set DATABASE_URL (or PGHOST/PGDATABASE)")
        }
    }
}

extension OutputTarget {
    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
        /// Only regular files: two reports may well both go to /dev/null.
        init?(_ path: String) {
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// Refuses an output that is one of the inputs (the same file, also through a symlink or a
    /// hard link, or a file inside an input folder) or the same file as another output:
    /// writing the report would destroy what the command reads.
    static func refuseOverlap(_ outputs: [(option: String, path: String?)], inputs: [String]) throws {
        var read: [FileID: String] = [:]
        for input in inputs {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir) else { continue }
            let files =
                isDir.boolValue
                ? (FileManager.default.enumerator(atPath: input)?.allObjects as? [String] ?? []).map {
                    (input as NSString).appendingPathComponent($0)
                } : [input]
            for f in files { if let id = FileID(f), read[id] == nil { read[id] = f } }
        }
        var written: [FileID: String] = [:]
        var writtenPaths: [String: String] = [:]
        for case (let option, let path?) in outputs {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            if let id = FileID(path) {
                if let input = read[id] {
                    throw ConfigurationError(
                        "--\(option) \(path) is \(input == path ? "one of the inputs" : "the same file as the input \(input)"): writing it would destroy the input; choose another file"
                    )
                }
                if let other = written[id] {
                    throw ConfigurationError(
                        "--\(option) and --\(other) name the same file (\(path)): give each its own")
                }
                written[id] = option
            } else if !absolute.hasPrefix("/dev/"), !absolute.hasPrefix("/proc/"), let other = writtenPaths[absolute] {
                throw ConfigurationError("--\(option) and --\(other) name the same file (\(path)): give each its own")
            }
            writtenPaths[absolute] = option
        }
    }
}
