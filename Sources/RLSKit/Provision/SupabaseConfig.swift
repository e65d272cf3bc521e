import Foundation

/// What rlskit takes from a Supabase CLI project's `supabase/config.toml`: the settings that
/// change what the platform's database looks like. Unknown keys are ignored, as the CLI
/// ignores what it does not use; a key of the wrong type is a `file:line` error.
public struct SupabaseConfig: Sendable, Equatable {
    public struct Bucket: Sendable, Equatable {
        public var name: String
        public var isPublic: Bool
        /// Bytes; nil when the file sets no limit.
        public var fileSizeLimit: Int64?
        public var allowedMimeTypes: [String]?
        public init(name: String, isPublic: Bool, fileSizeLimit: Int64? = nil, allowedMimeTypes: [String]? = nil) {
            self.name = name
            self.isPublic = isPublic
            self.fileSizeLimit = fileSizeLimit
            self.allowedMimeTypes = allowedMimeTypes
        }
    }

    /// The file it was read from.
    public var path: String
    /// `[api] schemas`: the schemas the Data API exposes (`public` and `graphql_public` are
    /// always exposed on the platform, so they are included).
    public var exposedSchemas: [String]?
    /// `[api] extra_search_path`: what PostgREST puts after the request's schema in every
    /// request's search_path (the platform's default is `public, extensions`).
    public var extraSearchPath: [String]?
    /// `[api] auto_expose_new_tables`: true keeps the old default grants to the API roles.
    public var autoExposeNewTables: Bool?
    /// `[db.seed] enabled` (the CLI's default is true).
    public var seedEnabled = true
    /// `[db.seed] sql_paths`, relative to the `supabase/` folder, globs allowed (default `./seed.sql`).
    public var seedPaths = ["./seed.sql"]
    /// `[storage.buckets.<name>]`: buckets the CLI creates on `db reset`.
    public var buckets: [Bucket] = []
    /// `[auth.hook.custom_access_token]` when enabled: its `uri` (`pg-functions://postgres/public/hook`).
    public var customAccessTokenHook: String?
    /// The line of that `uri`.
    public var customAccessTokenHookLine = 1
    /// The settings the file gave, as `section.key` (for the summary).
    public var settingsRead: [String] = []

    /// `config.toml` in the `supabase/` folder `dir`, nil when there is none.
    public static func load(supabaseDirectory dir: String) throws -> SupabaseConfig? {
        let path = (dir as NSString).appendingPathComponent("config.toml")
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try ProjectFiles.contents(path)
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    public static func parse(_ text: String, path: String) throws(InputError) -> SupabaseConfig {
        let root = try TOMLReader.parse(text, file: path)
        var c = SupabaseConfig(path: path)
        func fail(_ table: TOMLTable, _ key: String, _ section: String, _ expected: String) -> InputError {
            InputError(
                SourceLocation(file: path, line: table.line(of: key) ?? 1), "[\(section)] \(key) must be \(expected)")
        }
        func strings(_ table: TOMLTable, _ key: String, _ section: String) throws(InputError) -> [String]? {
            guard let v = table[key] else { return nil }
            guard let items = v.array, items.allSatisfy({ $0.string != nil }) else {
                throw fail(table, key, section, "an array of strings")
            }
            c.settingsRead.append("\(section).\(key)")
            return items.compactMap(\.string)
        }
        func bool(_ table: TOMLTable, _ key: String, _ section: String) throws(InputError) -> Bool? {
            guard let v = table[key] else { return nil }
            guard let b = v.bool else { throw fail(table, key, section, "true or false") }
            c.settingsRead.append("\(section).\(key)")
            return b
        }
        if let api = root["api"]?.table {
            if let schemas = try strings(api, "schemas", "api") {
                var all = schemas
                for s in ["public", "graphql_public"] where !all.contains(s) { all.append(s) }
                c.exposedSchemas = all
            }
            c.extraSearchPath = try strings(api, "extra_search_path", "api")
            c.autoExposeNewTables = try bool(api, "auto_expose_new_tables", "api")
        }
        if let seed = root.value(at: "db.seed")?.table {
            if let enabled = try bool(seed, "enabled", "db.seed") { c.seedEnabled = enabled }
            if let paths = try strings(seed, "sql_paths", "db.seed") { c.seedPaths = paths }
        }
        if let buckets = root.value(at: "storage.buckets")?.table {
            for name in buckets.keys {
                guard let b = buckets[name]?.table else { throw fail(buckets, name, "storage.buckets", "a table") }
                let section = "storage.buckets.\(name)"
                var bucket = Bucket(name: name, isPublic: try bool(b, "public", section) ?? false)
                if let limit = b["file_size_limit"] {
                    guard let bytes = Self.bytes(limit) else {
                        throw fail(b, "file_size_limit", section, "a size such as \"50MiB\"")
                    }
                    bucket.fileSizeLimit = bytes
                    c.settingsRead.append("\(section).file_size_limit")
                }
                bucket.allowedMimeTypes = try strings(b, "allowed_mime_types", section)
                c.buckets.append(bucket)
            }
        }
        if let hook = root.value(at: "auth.hook.custom_access_token")?.table {
            let enabled = try bool(hook, "enabled", "auth.hook.custom_access_token") ?? false
            if enabled, let uri = hook["uri"]?.string {
                c.customAccessTokenHook = uri
                c.customAccessTokenHookLine = hook.line(of: "uri") ?? 1
                c.settingsRead.append("auth.hook.custom_access_token.uri")
            }
        }
        return c
    }

    /// The hook as the tests run it; nil without one, or for an HTTP hook (which cannot run here).
    public var accessTokenHook: AccessTokenHook? {
        customAccessTokenHook.flatMap { AccessTokenHook(uri: $0, source: "\(path):\(customAccessTokenHookLine)") }
    }

    /// `"50MiB"`, `"5MB"`, `"1GB"`, `"512KiB"`, `1048576`, as the CLI reads sizes (binary units).
    static func bytes(_ value: TOMLValue) -> Int64? {
        if let n = value.integer { return n >= 0 ? n : nil }
        guard let text = value.string?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let digits = text.prefix { $0.isNumber || $0 == "." }
        guard let number = Double(digits) else { return nil }
        let unit = text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let scale: Double
        switch unit {
        case "", "b": scale = 1
        case "k", "kb", "kib": scale = 1024
        case "m", "mb", "mib": scale = 1_048_576
        case "g", "gb", "gib": scale = 1_073_741_824
        default: return nil
        }
        // Too large for a byte count (or not finite): a mistake, not a crash.
        let value = (number * scale).rounded(.down)
        return value.isFinite && value < 0x1p63 ? Int64(value) : nil
    }

    /// The settings rlskit acts on, of those the file gave (for the summary).
    public var settingsUsed: [String] {
        let used = [
            "api.schemas", "api.extra_search_path", "db.seed.", "storage.buckets.", "auth.hook.",
            "api.auto_expose_new_tables",
        ]
        return settingsRead.filter { key in used.contains { key.hasPrefix($0) } }
    }

    /// The seed files in order: each path, globs expanded in sorted order, relative to `dir`.
    public func seedFiles(supabaseDirectory dir: String) -> [String] {
        guard seedEnabled else { return [] }
        var out: [String] = []
        for pattern in seedPaths {
            for file in Self.matches(pattern, in: dir) where !out.contains(file) { out.append(file) }
        }
        return out
    }

    /// The `sql_paths` patterns that match no file, as the CLI names them when it warns
    /// (`supabase/seed.sql`): a warning there, not an error, and the reset goes on.
    public func unmatchedSeedPatterns(supabaseDirectory dir: String) -> [String] {
        guard seedEnabled else { return [] }
        return seedPaths.filter { Self.matches($0, in: dir).isEmpty }.map { Self.standard($0, in: dir) }
    }

    static func standard(_ pattern: String, in dir: String) -> String {
        let full = pattern.hasPrefix("/") ? pattern : (dir as NSString).appendingPathComponent(pattern)
        return (full as NSString).standardizingPath
    }

    /// Files outside the folders rlskit was given match nothing, so neither a seed nor the
    /// unmatched-pattern warning tells the project what exists there.
    static func matches(_ pattern: String, in dir: String) -> [String] {
        let standard = standard(pattern, in: dir)
        let found =
            standard.contains("*") || standard.contains("?") || standard.contains("[")
            ? glob(standard) : FileManager.default.fileExists(atPath: standard) ? [standard] : []
        return found.filter { ProjectFiles.refusal($0) == nil }
    }

    static func glob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard Foundation.glob(pattern, 0, nil, &g) == 0 else { return [] }
        return (0..<Int(g.gl_pathc)).compactMap { g.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }
}
