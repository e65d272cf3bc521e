import Foundation
import Postgres

/// The project a command works on, resolved once: its files (migrations, seeds, tests,
/// config.toml) and the settings every engine needs, each with where it came from. Every
/// command builds one with `resolve` and derives its engines' options from it, so that `test`,
/// `check`, `audit`, `snapshot` and `init` cannot disagree about the same project.
public struct Project: Sendable {
    /// What the caller decided (the CLI's options); nil where it left the choice to the project.
    public struct Given: Sendable {
        public var migrations: MigrationSource
        public var tests = TestSuite()
        /// Access files read for their `expose` lines only, by commands that do not run them.
        public var exposeOnly = HarnessInput()
        public var exposedSchemas: Setting<[String]>?
        public var accessTokenHook: AccessTokenHook?
        public var grants: Setting<GrantsRegime.Mode>?
        public init(migrations: MigrationSource) { self.migrations = migrations }
    }

    public var migrations: MigrationSource
    /// The Supabase CLI folder around the migrations: config.toml and the seed files.
    public var supabase: SupabaseProject?
    public var tests: TestSuite
    /// The schemas the Data API serves. Nil when neither the caller nor a project file says:
    /// then the database's `pgrst.db_schemas` decides, else `public` (see `exposure(on:)`).
    public var exposedSchemas: Setting<[String]>?
    /// What PostgREST puts after the request's schema in the search_path.
    public var extraSearchPath: Setting<[String]>
    /// The custom access-token hook every test user's claims go through (it says where it was set).
    public var accessTokenHook: AccessTokenHook?
    /// The grants regime asked for; nil chooses from config.toml, else the migrations' dates.
    public var grants: Setting<GrantsRegime.Mode>?

    /// Seeds and buckets as `supabase db reset` would create them.
    public var seeds: [SQLFile] { supabase?.seeds ?? [] }
    public var buckets: [SupabaseConfig.Bucket] { supabase?.config?.buckets ?? [] }

    /// The platform's `[api] extra_search_path`.
    public static let platformSearchPath = ["public", "extensions"]

    /// The one place project settings are decided. Exposed schemas: the caller's, else the
    /// schemas config.toml's `[api] schemas` and the access files' `expose` lines name
    /// (a schema either names is served), else left to the database.
    public static func resolve(_ given: Given) throws -> Project {
        let supabase = try SupabaseProject.locate(given.migrations)
        let config = supabase?.config
        var exposed = given.exposedSchemas
        if exposed == nil {
            var names = config?.exposedSchemas ?? []
            var files = config?.exposedSchemas == nil ? [] : [config!.path]
            for file in given.tests.harness.access + given.exposeOnly.access where !file.exposedSchemas.isEmpty {
                for s in file.exposedSchemas where !names.contains(s) { names.append(s) }
                if !files.contains(file.path) { files.append(file.path) }
            }
            if !names.isEmpty { exposed = Setting(names, from: .file(files.joined(separator: " and "))) }
        }
        let searchPath =
            config?.extraSearchPath.map { Setting($0, from: .file(config!.path)) }
            ?? Setting(platformSearchPath, from: .platformDefault)
        let hook = given.accessTokenHook ?? config?.accessTokenHook
        return Project(
            migrations: given.migrations, supabase: supabase, tests: given.tests, exposedSchemas: exposed,
            extraSearchPath: searchPath, accessTokenHook: hook, grants: given.grants)
    }

    /// The exposed schemas on `conn`'s database: the project's, else `pgrst.db_schemas`, else `public`.
    public func exposure(on conn: PostgresConnection) throws -> ExposedSchemas {
        if let exposedSchemas { return ExposedSchemas(exposedSchemas) }
        return try ExposedSchemas.detect(conn)
    }

    /// The settings as the summary prints them: `exposed schemas: public, api (supabase/config.toml)`.
    public func settingLines(exposure: ExposedSchemas) -> [String] {
        func list(_ names: [String]) -> String { names.map { SQL.display($0) }.joined(separator: ", ") }
        var lines = ["exposed schemas: \(list(exposure.names)) (\(exposure.source))"]
        if extraSearchPath.source != .platformDefault {
            lines.append("extra search path: \(list(extraSearchPath.value)) (\(extraSearchPath.source))")
        }
        if let hook = accessTokenHook { lines.append("access token hook: \(hook) (\(hook.source))") }
        return lines.map(TextEscape.line)
    }
}

extension ExposedSchemas {
    init(_ setting: Setting<[String]>) { self.init(names: setting.value, origin: setting.source) }
}
