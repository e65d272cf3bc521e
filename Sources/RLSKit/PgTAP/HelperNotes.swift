import Postgres

/// Where a suite's outcome under basejump's helpers (the default) may differ from the data
/// API's behaviour (`--helpers api`): said once per run, as notes.
enum HelperNotes {
    static func apiDifferences(_ conn: PostgresConnection) throws -> [String] {
        let row = try conn.query(
            """
            select (select string_agg(format('%s (%s)', t.tgname, p.oid::regprocedure), ', ' order by t.tgname)
                      from pg_trigger t join pg_proc p on p.oid = t.tgfoid
                     where t.tgrelid = to_regclass('auth.users') and not t.tgisinternal and not p.prosecdef
                       and exists (select 1 from pg_roles where rolname = 'supabase_auth_admin')) as triggers,
                   (select count(*)::int from pg_policies
                     where concat(qual, ' ', with_check) ~* 'auth\\.role\\(\\)|''role''::text') as role_policies
            """
        ).rows[0]
        var notes: [String] = []
        if let triggers: String = try row.decode("triggers") {
            notes.append(
                "auth.users triggers without SECURITY DEFINER: \(triggers); tests.create_supabase_user inserts as the "
                    + "calling role here (as basejump's helpers do), but on Supabase sign-up runs as supabase_auth_admin: "
                    + "try --helpers api")
        }
        let policies: Int = try row.decode("role_policies")
        if policies > 0 {
            notes.append(
                "\(policies) \(policies == 1 ? "policy reads" : "policies read") the JWT's role: after tests.authenticate_as "
                    + "it is unset here (basejump's claims carry no role), while the data API sets it: try --helpers api"
            )
        }
        return notes
    }
}
