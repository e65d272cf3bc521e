extension Lint {
    static func securityDefinerExecutable(role: String) -> String {
        """
        select n.nspname as schema, p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')' as name,
               'function' as kind, null::text as member,
               format('SECURITY DEFINER function %s.%s(%s) in exposed schema %s can be called by \(role) through the API (EXECUTE %s) and runs with the rights of %s',
                      \(SQLParts.ident("n.nspname")), \(SQLParts.ident("p.proname")), pg_catalog.oidvectortypes(p.proargtypes), \(SQLParts.ident("n.nspname")), v.via,
                      pg_catalog.pg_get_userbyid(p.proowner)) as detail,
               jsonb_build_object('execute', v.via, 'owner', pg_catalog.pg_get_userbyid(p.proowner))::text as metadata
        from pg_catalog.pg_proc p
        join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        join pg_catalog.pg_roles ar on ar.rolname = '\(role)'
        cross join lateral (
          select case
            when exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) x
                         where x.grantee = 0 and x.privilege_type = 'EXECUTE') then 'granted to PUBLIC'
            when exists (select 1 from aclexplode(p.proacl) x
                         where x.grantee = ar.oid and x.privilege_type = 'EXECUTE') then 'granted to \(role)'
            else 'through a role \(role) is a member of' end as via
        ) v
        where p.prosecdef and p.prokind = 'f' and n.nspname = any($1::text[])
          and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
          and has_schema_privilege(ar.oid, n.oid, 'USAGE')
          and has_function_privilege(ar.oid, p.oid, 'EXECUTE')
          and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
        """
    }

    static let anonSecurityDefinerFunctionExecutable = Lint(
        id: "0028", name: "anon_security_definer_function_executable",
        title: "SECURITY DEFINER function callable by anon",
        level: .error, categories: [.security],
        description: """
            A SECURITY DEFINER function in an exposed schema can be executed by anon, so anyone with the \
            project's public anon key can call it as RPC and it runs with its owner's rights, past every \
            policy. PostgreSQL grants EXECUTE to PUBLIC by default: revoking from anon alone is not \
            enough while PUBLIC still has it.
            """,
        remediation:
            "Move the function to a schema the API does not expose, or `revoke execute on function <function> from public, anon;` (and grant it only to the roles that need it).",
        logic: .sql(securityDefinerExecutable(role: "anon")),
        triggering: [
            .init(
                """
                create function public.wipe(target uuid) returns void language sql security definer set search_path = ''
                  as $$ select $$;
                """, reports: "function public.wipe(uuid)"),
            .init(
                """
                -- Revoked from anon, but PUBLIC still has EXECUTE.
                create function public.wipe(target uuid) returns void language sql security definer set search_path = ''
                  as $$ select $$;
                revoke execute on function public.wipe(uuid) from anon;
                """, reports: "function public.wipe(uuid)"),
        ],
        nonTriggering: [
            """
            create function public.wipe(target uuid) returns void language sql security definer set search_path = ''
              as $$ select $$;
            revoke execute on function public.wipe(uuid) from public, anon;
            """,
            """
            create schema private;
            create function private.wipe(target uuid) returns void language sql security definer set search_path = ''
              as $$ select $$;
            """,
        ])
}
