/// Which behaviour the built-in supabase-test-helpers have.
public enum PgTAPHelperSet: String, Sendable, CaseIterable {
    /// As basejump-supabase_test_helpers 0.0.6 (what dbdev installs) behaves: the default.
    case basejump
    /// As the data API impersonates: claims carry `role`, users sign up as the auth server's role.
    case api
}

/// The supabase-test-helpers API (basejump): `tests.*` functions, in one of two flavours.
///
/// A run creates them in schema `tests` inside its own transaction (so nothing persists),
/// skipping every name a project's files define themselves, and makes them executable by
/// everyone, whatever default privileges the project set. `installSQL` is the committed
/// form, for other tools (pg_prove) or a database that keeps them.
@_spi(CLI) public enum SupabaseTestHelpers {
    /// An installed copy is used as it is; this function marks one.
    static let marker = "tests.authenticate_as(text)"

    /// One helper's definition, under the name a project might define itself.
    struct Definition {
        var name: String
        var sql: String
    }

    static func definitions(_ flavour: PgTAPHelperSet) -> [Definition] {
        switch flavour {
        case .basejump: return BasejumpHelpers.definitions
        case .api: return APIHelpers.definitions
        }
    }

    /// Creates the helpers (all but `skipping`) and grants them to everyone.
    static func setupSQL(_ flavour: PgTAPHelperSet, skipping: Set<String> = []) -> String {
        var parts = ["create schema if not exists tests", "create schema if not exists test_overrides"]
        parts += definitions(flavour).filter { !skipping.contains($0.name) }.map(\.sql)
        parts += [
            "grant usage on schema tests, test_overrides to public",
            "grant execute on all functions in schema tests, test_overrides to public",
            defaultPrivilegesSQL,
        ]
        return parts.joined(separator: ";\n\n") + ";\n"
    }

    /// As basejump's install does: functions the project creates later in these schemas are
    /// executable by the API roles, even where it revoked execute from public by default.
    static let defaultPrivilegesSQL = """
        do $$
        begin
          if (select count(*) from pg_roles where rolname in ('anon', 'authenticated', 'service_role')) = 3 then
            alter default privileges in schema tests, test_overrides revoke execute on functions from public;
            alter default privileges in schema tests, test_overrides
              grant execute on functions to anon, authenticated, service_role;
          end if;
        end
        $$
        """

    /// Creates schema `tests` with every helper, committed where it runs.
    /// pgTAP's functions are named unqualified and may be off this session's search path.
    public static func installSQL(_ flavour: PgTAPHelperSet = .basejump) -> String {
        "set check_function_bodies = off;\n\n" + setupSQL(flavour) + "\nreset check_function_bodies;\n"
    }
}
