import Postgres

/// Which Data API grants new objects in `public` get. Until 2026-05-30 (new projects) and
/// 2026-10-30 (existing ones) the platform granted anon, authenticated and service_role ALL
/// on every new table, sequence and function there through default privileges (automatic);
/// since then a migration must grant them itself (explicit).
public struct GrantsRegime: Sendable, Equatable, CustomStringConvertible {
    public enum Mode: String, Sendable {
        case automatic, explicit
    }

    public var mode: Mode
    /// With `automatic`: the first migration version that runs under explicit grants.
    public var explicitFrom: String?
    /// Why this regime, for the summary.
    public var reason: String

    /// The switch dates as migration version prefixes (the CLI's `YYYYMMDDHHMMSS`).
    static let newProjectSwitch = "20260530000000"
    static let existingProjectSwitch = "20261030000000"

    /// The caller's choice first, then `config.toml`'s `[api] auto_expose_new_tables`, then the
    /// migrations' timestamps: a project whose first migration predates the new-project
    /// switch existed before it, so its files up to the existing-project switch ran automatic.
    public static func choose(given: Setting<Mode>?, config: SupabaseConfig?, versions: [String]) -> GrantsRegime {
        if let given { return GrantsRegime(mode: given.value, reason: "from \(given.source)") }
        if let auto = config?.autoExposeNewTables, let config {
            return GrantsRegime(
                mode: auto ? .automatic : .explicit,
                reason: "from \(config.path) [api] auto_expose_new_tables = \(auto)")
        }
        let stamps = versions.filter { $0.count == 14 && $0.allSatisfy { $0.isASCII && $0.isNumber } }.sorted()
        guard let first = stamps.first else {
            return GrantsRegime(mode: .explicit, reason: "the platform's current default; no timestamped migrations")
        }
        if first >= newProjectSwitch {
            return GrantsRegime(
                mode: .explicit,
                reason: "the first migration, \(first), is from 2026-05-30 on, when new projects lost them")
        }
        let later = stamps.first { $0 >= existingProjectSwitch }
        return GrantsRegime(
            mode: .automatic, explicitFrom: later,
            reason: "the first migration, \(first), predates 2026-05-30"
                + (later.map { "; explicit from \($0) (2026-10-30 on)" }
                    ?? "; as production gave them before 2026-10-30"))
    }

    public var description: String { "grants \(mode.rawValue) (\(reason))" }

    /// What a `denied by privilege` result adds: the regime and how to change it.
    public var denialNote: String {
        "grants are \(mode.rawValue) here (\(reason)); "
            + (mode == .explicit
                ? "the migrations must GRANT to the API roles, or pass --grants automatic (or set [api] auto_expose_new_tables = true) if production gave them automatically"
                : "pass --grants explicit (or set [api] auto_expose_new_tables = false) to check without automatic grants")
    }

    /// Whether the migration `version` runs with the automatic default privileges in place.
    func automatic(at version: String) -> Bool {
        mode == .automatic && (explicitFrom.map { version < $0 } ?? true)
    }

    /// Grants (or revokes) the automatic default privileges, for the roles the platform sets
    /// them for, where those roles exist.
    static func setDefaults(_ conn: PostgresConnection, automatic: Bool) throws {
        let (verb, to) = automatic ? ("grant", "to") : ("revoke", "from")
        _ = try conn.runScript(
            """
            do $$
            declare owner text; kind text;
            begin
              if (select count(*) from pg_roles where rolname in ('anon', 'authenticated', 'service_role')) < 3 then
                return;
              end if;
              foreach owner in array array['postgres', 'supabase_admin'] loop
                continue when not exists (select 1 from pg_roles where rolname = owner);
                foreach kind in array array['tables', 'sequences', 'functions'] loop
                  execute format('alter default privileges for role %I in schema public \(verb) all on %s \(to) anon, authenticated, service_role', owner, kind);
                end loop;
              end loop;
            end $$
            """)
    }
}

extension TestReport {
    /// Each `denied by privilege` result names the grants regime and how to change it.
    public func naming(_ regime: GrantsRegime) -> TestReport {
        var r = self
        for k in r.outcomes.indices {
            guard let m = r.outcomes[k].message, m.contains("denied by privilege (42501:") else { continue }
            r.outcomes[k].message = m + " — " + regime.denialNote
        }
        return r
    }
}

extension GrantsRegime {
    /// The regime a given database runs under, read from its default privileges: whether new
    /// tables in `public` are granted to anon or authenticated without a GRANT.
    public static func observed(_ conn: PostgresConnection) throws -> String {
        let auto: Bool = try conn.query(
            """
            select exists (
              select 1 from pg_default_acl d cross join lateral aclexplode(d.defaclacl) a
              join pg_roles r on r.oid = a.grantee
              where d.defaclnamespace = to_regnamespace('public') and d.defaclobjtype = 'r'
                and r.rolname in ('anon', 'authenticated')) as auto
            """
        ).rows[0].decode("auto")
        return auto
            ? "grants automatic (read from the database: default privileges give anon or authenticated new tables in public)"
            : "grants explicit (read from the database: no default privileges for anon or authenticated in public)"
    }
}
