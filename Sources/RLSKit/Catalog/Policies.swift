/// The questions about row level security and policies that more than one reader asks, and the
/// policy lists each reader takes. `Catalog.policySQL` (the expressions of the declared tables,
/// for finding claims) is beside `Catalog.tables`; each lint's own query stays with its lint.
extension Catalog {
    /// Whether row level security is on for the relation named by `table`, an SQL expression
    /// (`$1`, or a literal where the statement runs later).
    static func rowSecuritySQL(_ table: String) -> String {
        "select relrowsecurity from pg_class where oid = \(table)::regclass"
    }

    /// Blame: the policies on `$1` (a relation's name) that apply to the role `$2`, PUBLIC's or
    /// those of a role it is a member of, in name order.
    static let rolePoliciesSQL = """
        select polname, polpermissive, polcmd::text, pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid)
        from pg_policy where polrelid = $1::regclass
          and (0 = any(polroles) or exists (select 1 from unnest(polroles) r where r <> 0 and pg_has_role($2, r, 'member')))
        order by polname
        """

    /// `rlskit init`: the policies of every table in the schemas `$1`, in order. Unlike
    /// `auditPoliciesSQL`, only those schemas, and extension members are kept: the draft quotes
    /// what the schemas hold.
    static let schemaPoliciesSQL = """
        select n.nspname::text as schema, c.relname::text as name, p.polname::text as policy, p.polcmd::text as cmd,
               p.polpermissive as permissive,
               \(SQLParts.policyRoleNames("p")) as roles,
               pg_get_expr(p.polqual, p.polrelid) as using_expr, pg_get_expr(p.polwithcheck, p.polrelid) as check_expr
          from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any($1) order by 1, 2, 3
        """

    /// The audit: the policies of the exposed schemas `$1` (text[]) and of those their functions
    /// reach, and Storage's and Realtime Authorization's, which the data API does not expose;
    /// extension members left out. Unordered: the lints sort what they report.
    static let auditPoliciesSQL = """
        select n.nspname as schema, c.relname as table_name, p.polname as name, p.polcmd::text as cmd,
               p.polpermissive as permissive, c.relrowsecurity as rls,
               \(SQLParts.policyRoleNames("p")) as roles,
               pg_catalog.pg_get_expr(p.polqual, p.polrelid) as qual,
               pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) as with_check
        from pg_catalog.pg_policy p
        join pg_catalog.pg_class c on c.oid = p.polrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where (n.nspname = any($1::text[]) or n.nspname = 'storage' or n.nspname = any(\(reachedSchemasSQL))
               or (n.nspname = 'realtime' and c.relname = 'messages'))
          and \(SQLParts.notExtensionMember("c"))
        """

    /// SQL: user schemas the API does not expose whose tables SECURITY INVOKER functions in the
    /// exposed schemas `$1` name (`basejump.accounts`): queried through them under RLS.
    static let reachedSchemasSQL = """
        array(select s.nspname from pg_catalog.pg_namespace s
              where \(SchemaLists.userSchema("s")) and s.nspname <> all($1::text[])
                and exists (select 1 from pg_catalog.pg_proc f join pg_catalog.pg_namespace fn on fn.oid = f.pronamespace
                            where fn.nspname = any($1::text[]) and not f.prosecdef and f.prokind = 'f'
                              and position(s.nspname || '.' in f.prosrc) > 0))
        """
}
