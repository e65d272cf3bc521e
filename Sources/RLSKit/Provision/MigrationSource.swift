import Foundation

/// Where migrations come from.
public enum MigrationSource: Sendable, Equatable, CustomStringConvertible {
    case directory(String)
    /// The schema compiled into rlskit (this repository's `sql/migrations`).
    case builtIn
    /// No migrations folder was found: nothing to apply but the stand-in.
    case none

    /// `sql/migrations` when present, else a Supabase project's `supabase/migrations`, else built in.
    public static func defaultSource(in cwd: String = FileManager.default.currentDirectoryPath) -> MigrationSource {
        for dir in ["sql/migrations", "supabase/migrations"] {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: cwd + "/" + dir, isDirectory: &isDir), isDir.boolValue {
                return .directory(dir)
            }
        }
        return .builtIn
    }

    /// What `check` applies when not told: `sql/migrations`, else `supabase/migrations`, else
    /// nothing. The built-in schema only when asked for, so a project never gets it by accident.
    public static func projectSource(in cwd: String = FileManager.default.currentDirectoryPath) -> MigrationSource {
        let found = defaultSource(in: cwd)
        return found == .builtIn ? .none : found
    }

    public var description: String {
        switch self {
        case .directory(let d): return d
        case .builtIn: return "the built-in schema"
        case .none: return "no migrations folder"
        }
    }

    /// The migrations in name order.
    public func load() throws -> [SQLFile] { try loadSkipping().files }

    /// The migrations, and the `.sql` files beside them that are not named as migrations.
    public func loadSkipping() throws -> (files: [SQLFile], skipped: [String]) {
        switch self {
        case .builtIn: return (BuiltInSQL.files(in: "migrations"), [])
        case .none: return ([], [])
        case .directory(let dir): return try SQLFile.loadMigrations(dir)
        }
    }
}

extension SQLFile {
    /// Whether the Supabase CLI takes the file as a migration: `<digits>_<name>.sql`.
    public static func isMigrationName(_ file: String) -> Bool {
        guard file.hasSuffix(".sql"), let cut = file.firstIndex(of: "_") else { return false }
        let digits = file[..<cut]
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The migrations directly in `dir` (names as the Supabase CLI takes them, `<digits>_<name>.sql`),
    /// in name order, and the other `.sql` files there, skipped as the CLI skips them (an
    /// `ALL_MIGRATIONS.sql` beside them). Unreadable or non-UTF-8 files are configuration
    /// errors naming the file.
    public static func loadMigrations(_ dir: String) throws -> (files: [SQLFile], skipped: [String]) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else {
            throw ConfigurationError("\(dir): no such directory")
        }
        guard isDir.boolValue else {
            throw ConfigurationError("\(dir): not a directory (expected a folder of .sql files)")
        }
        // A folder that is a link out of the project is not listed: the names of what sits
        // there (the skipped ones are printed) are not the project's to learn.
        if let why = ProjectFiles.refusal(dir) { throw ConfigurationError("\(dir): \(why)") }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
            throw ConfigurationError("\(dir): cannot list the directory (permission denied?)")
        }
        let sql = names.filter { $0.hasSuffix(".sql") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let files = try sql.filter(isMigrationName).map { name in
            let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            return try load(path)
        }
        var seen: [String: SQLFile] = [:]
        for f in files {
            if let other = seen[f.version] {
                throw ConfigurationError(
                    "\(f.path): version \(f.version) is also used by \(other.path); give each migration its own version prefix"
                )
            }
            seen[f.version] = f
        }
        return (files, sql.filter { !isMigrationName($0) })
    }

    public static func load(_ path: String) throws -> SQLFile {
        let data = try ProjectFiles.contents(path)
        // psql skips a byte order mark; the server would read it as part of the first word.
        guard let text = TextFile.decode(data) else {
            let bad = firstInvalidUTF8Line(data)
            throw ConfigurationError("\(path):\(bad): not valid UTF-8; save the file as UTF-8")
        }
        if text.unicodeScalars.contains("\u{0}") {
            throw ConfigurationError("\(path): contains a NUL byte, which PostgreSQL cannot accept")
        }
        return SQLFile(path: path, contents: text)
    }

    static func firstInvalidUTF8Line(_ data: Data) -> Int {
        var line = 1
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: 10) ?? data.endIndex
            if String(validating: data[start..<end], as: UTF8.self) == nil { return line }
            line += 1
            start = end < data.endIndex ? data.index(after: end) : end
        }
        return line
    }
}
