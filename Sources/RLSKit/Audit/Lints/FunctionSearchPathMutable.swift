extension Lint {
    static let functionSearchPathMutable = Lint(
        id: "0011", name: "function_search_path_mutable",
        title: "SECURITY DEFINER function without a fixed search_path",
        level: .warn, categories: [.security],
        description: """
            A SECURITY DEFINER function runs with its owner's rights but resolves unqualified names \
            through the caller's search_path. A caller who can create objects in any schema on that \
            path (or set the path) can make the function call their own code with the owner's rights.
            """,
        remediation:
            "Add `set search_path = ''` to the function and qualify every name in its body (`public.profiles`, `pg_catalog.now()`).",
        logic: .sql(
            """
            select n.nspname as schema, p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')' as name,
                   'function' as kind, null::text as member,
                   format('SECURITY DEFINER function %s.%s(%s) does not set search_path, so it resolves names through the caller''s search_path with the rights of %s',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("p.proname")), pg_catalog.oidvectortypes(p.proargtypes), pg_catalog.pg_get_userbyid(p.proowner)) as detail,
                   jsonb_build_object('owner', pg_catalog.pg_get_userbyid(p.proowner))::text as metadata
            from pg_catalog.pg_proc p
            join pg_catalog.pg_namespace n on n.oid = p.pronamespace
            where p.prosecdef and \(SchemaLists.userSchema("n"))
              and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) cfg where cfg like 'search_path=%')
              and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
            """),
        triggering: [
            .init(
                """
                create function public.bump() returns int language sql security definer as $$ select 1 $$;
                """, reports: "function public.bump()")
        ],
        nonTriggering: [
            """
            create function public.bump() returns int language sql security definer set search_path = '' as $$ select 1 $$;
            """,
            """
            create function public.bump() returns int language sql as $$ select 1 $$;
            """,
        ])
}
