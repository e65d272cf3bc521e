extension Lint {
    static let authUsersExposed = Lint(
        id: "0002", name: "auth_users_exposed", title: "auth.users exposed through a view",
        level: .error, categories: [.security],
        description: """
            A view or materialized view in an exposed schema reads auth.users and anon or authenticated can \
            select it. A view runs with its owner's rights unless it is security_invoker, and a \
            materialized view has no row level security at all, so every user's email, phone and \
            metadata are readable through the API.
            """,
        remediation:
            "Drop the view, move it to a schema the API does not expose, or revoke SELECT from anon and authenticated; for a plain view, `alter view <view> set (security_invoker = true)`.",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name,
                   case c.relkind when 'm' then 'materialized view' else 'view' end as kind, null::text as member,
                   format('%s %s.%s reads auth.users and %s can select it%s',
                          case c.relkind when 'm' then 'materialized view' else 'view' end, \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), api.roles,
                          case c.relkind when 'm' then ' (materialized views have no row level security)'
                                         else ' with the rights of its owner ' || pg_catalog.pg_get_userbyid(c.relowner) end) as detail,
                   jsonb_build_object('roles', api.roles)::text as metadata
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            cross join lateral (select \(SQLParts.apiRolesWithSelect("c"))) api(roles)
            where c.relkind in ('v', 'm') and n.nspname = any($1::text[])
              and (c.relkind = 'm' or not \(SQLParts.isSecurityInvoker("c")))
              and api.roles is not null and \(SQLParts.notExtensionMember("c"))
              and exists (select 1 from pg_catalog.pg_rewrite rw
                          join pg_catalog.pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = rw.oid
                          where rw.ev_class = c.oid and d.refclassid = 'pg_class'::regclass
                            and d.refobjid = to_regclass('auth.users'))
            """),
        triggering: [
            .init(
                """
                create view public.user_emails as select id, email from auth.users;
                grant select on public.user_emails to anon;
                """, reports: "view public.user_emails"),
            .init(
                """
                create materialized view public.user_list as select id, email from auth.users;
                grant select on public.user_list to authenticated;
                """, reports: "materialized view public.user_list"),
        ],
        nonTriggering: [
            """
            create view public.user_emails with (security_invoker = true) as select id, email from auth.users;
            grant select on public.user_emails to anon;
            """,
            """
            create view public.user_emails as select id, email from auth.users;
            revoke all on public.user_emails from public, anon, authenticated;
            """,
        ])
}
