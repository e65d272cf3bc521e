import Foundation
@_spi(CLI) import RLSKit

/// The options that say what the project is, parsed once into what `Project.resolve` takes:
/// every command that works on a project reads them here, so that they cannot disagree.
struct ProjectOptions {
    static let exposedSchemas = OptionSpec.option(
        "exposed-schemas", "LIST",
        "Comma-separated schemas the API serves (default: config.toml's [api] schemas and the access files' "
            + "expose lines, else pgrst.db_schemas, else public).")
    static let accessTokenHook = OptionSpec.option(
        "access-token-hook", "SCHEMA.FUNCTION",
        "Run every test user's claims through this custom access-token hook (default: config.toml's).")
    static let grants = OptionSpec.option(
        "grants", "REGIME",
        "On a throwaway database: automatic (new public objects granted to the API roles, as before 2026) or explicit. Default: from config.toml, else the migrations' dates."
    )

    var exposedSchemas: Setting<[String]>?
    var accessTokenHook: AccessTokenHook?
    var grants: Setting<GrantsRegime.Mode>?

    /// Reads whichever of the three options the command has; the others stay nil.
    init(_ args: ParsedArguments) throws {
        exposedSchemas = try args.value("exposed-schemas").map { text in
            let names = ExposedSchemas.parseList(text)
            if names.isEmpty {
                throw ConfigurationError("--exposed-schemas is empty: give a comma-separated list such as public,api")
            }
            return Setting(names, from: .given("--exposed-schemas"))
        }
        accessTokenHook = try args.value("access-token-hook").map { h in
            guard let hook = AccessTokenHook(name: h, source: "--access-token-hook") else {
                throw ConfigurationError("--access-token-hook must be SCHEMA.FUNCTION (got '\(h)')")
            }
            return hook
        }
        grants = try args.value("grants").map { v in
            guard let mode = GrantsRegime.Mode(rawValue: v) else {
                throw ConfigurationError("--grants must be automatic or explicit (got '\(v)')")
            }
            return Setting(mode, from: .given("--grants"))
        }
    }

    /// The project around `migrations` with `tests`, as the options shape it. Without tests
    /// (commands that run none), the `expose` lines of sql/tests and supabase/tests still count.
    func resolve(migrations: MigrationSource, tests: TestSuite? = nil) throws -> Project {
        try Project.resolve(given(migrations: migrations, tests: tests))
    }

    /// What `Project.resolve` takes (`check` hands it to the library, which resolves it).
    func given(migrations: MigrationSource, tests: TestSuite? = nil) throws -> Project.Given {
        var given = Project.Given(migrations: migrations)
        if let tests {
            given.tests = tests
        } else {
            let folders = ["sql/tests", "supabase/tests"].filter { FileManager.default.fileExists(atPath: $0) }
            given.exposeOnly = try HarnessLoader.exposure(folders)
        }
        given.exposedSchemas = exposedSchemas
        given.accessTokenHook = accessTokenHook
        given.grants = grants
        return given
    }
}
