import Foundation

/// A Supabase CLI project around a migrations folder: the folder that holds `migrations/`
/// (`supabase/`), its `config.toml` when there is one, and the seed files `db reset` runs.
public struct SupabaseProject: Sendable, Equatable {
    /// The folder holding the migrations folder, e.g. `supabase`.
    public var directory: String
    public var config: SupabaseConfig?
    /// The seed files in the order they run: `[db.seed] sql_paths`, else `seed.sql` when
    /// the folder is a Supabase project's (`supabase/`, or it holds a `config.toml`).
    public var seeds: [SQLFile]
    /// `[db.seed] sql_paths` patterns that matched no file (the CLI warns about each).
    public var unmatchedSeeds: [String] = []

    /// One line for the summary when a seed pattern matched nothing; nil when all matched.
    public var seedWarning: String? {
        guard !unmatchedSeeds.isEmpty, let config else { return nil }
        return "warning: no seed files matched \(unmatchedSeeds.joined(separator: ", ")) ([db.seed] sql_paths in "
            + "\(config.path); as `supabase db reset`, the run goes on without them)"
    }

    /// The project around `source`; nil for the built-in schema.
    public static func locate(_ source: MigrationSource) throws -> SupabaseProject? {
        guard case .directory(let dir) = source else { return nil }
        var trimmed = dir
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let parent = FilePath.parent(trimmed)
        let folder = parent.isEmpty ? "." : parent
        let config = try SupabaseConfig.load(supabaseDirectory: folder)
        let paths: [String]
        if let config {
            paths = config.seedFiles(supabaseDirectory: folder)
        } else {
            let seed = (folder as NSString).appendingPathComponent("seed.sql")
            let isProject = (folder as NSString).lastPathComponent == "supabase"
            paths = isProject && FileManager.default.fileExists(atPath: seed) ? [seed] : []
        }
        return SupabaseProject(
            directory: folder, config: config, seeds: try paths.map(SQLFile.load),
            unmatchedSeeds: config?.unmatchedSeedPatterns(supabaseDirectory: folder) ?? [])
    }
}
