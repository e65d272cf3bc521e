import Foundation
import Postgres

/// Each engine's options, derived from the one resolved project: no engine reads config.toml
/// or the access files' `expose` lines itself.
extension Project {
    /// A throwaway database provisioned as `supabase db reset` would: the seeds, config.toml's
    /// buckets and the grants regime. A given database is the owner's: seeding it again would
    /// duplicate rows, so `base` is returned as it is there.
    public func migrator(
        _ base: Migrator.Options = Migrator.Options(), throwaway: Bool, projectConnection: ConnectionString? = nil
    ) throws -> Migrator.Options {
        guard throwaway else { return base }
        var o = base
        if o.seeds.isEmpty { o.seeds = seeds }
        if o.buckets.isEmpty { o.buckets = buckets }
        o.grants = try grantsRegime()
        o.projectConnection = projectConnection
        return o
    }

    /// The regime a throwaway database models: the caller's, else config.toml's, else the migrations' dates.
    public func grantsRegime() throws -> GrantsRegime {
        GrantsRegime.choose(given: grants, config: supabase?.config, versions: try migrations.load().map(\.version))
    }

    /// The harness's options with the project's exposure, search path and access-token hook.
    public func harness(_ base: HarnessOptions, exposure: ExposedSchemas?) -> HarnessOptions {
        var o = base
        o.exposedSchemas = exposure?.names ?? exposedSchemas?.value
        o.extraSearchPath = extraSearchPath.value
        o.accessTokenHook = accessTokenHook
        return o
    }

    /// The audit's options: the project's exposed schemas; nil leaves them to the database.
    public var audit: AuditOptions { AuditOptions(exposed: exposedSchemas.map(ExposedSchemas.init)) }
}
