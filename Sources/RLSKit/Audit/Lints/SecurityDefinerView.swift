extension Lint {
    static let securityDefinerView = Lint(
        id: "0010", name: "security_definer_view", title: "View runs with its owner's rights",
        level: .error, categories: [.security],
        description: """
            A view in an exposed schema that anon or authenticated can select is not security_invoker, \
            and it reads a protected table (one with row level security, or one the API roles cannot \
            read themselves). The view runs with its owner's rights, usually the table owner's, so the \
            table's policies are bypassed for everyone who queries the view.
            """,
        remediation:
            "`alter view <view> set (security_invoker = true)` (PostgreSQL 15+), or revoke SELECT on the view from anon and authenticated.",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name, 'view' as kind, null::text as member,
                   format('view %s.%s runs with the rights of its owner %s over %s, so %s bypass%s its row level security',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), pg_catalog.pg_get_userbyid(c.relowner), dep.tables, api.roles,
                          case when api.roles like '%,%' then '' else 'es' end) as detail,
                   jsonb_build_object('owner', pg_catalog.pg_get_userbyid(c.relowner), 'reads', dep.tables, 'roles', api.roles)::text as metadata
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            cross join lateral (select \(SQLParts.apiRolesWithSelect("c"))) api(roles)
            cross join lateral (
              select string_agg(distinct \(SQLParts.ident("tn.nspname")) || '.' || \(SQLParts.ident("t.relname")), ', ' order by \(SQLParts.ident("tn.nspname")) || '.' || \(SQLParts.ident("t.relname"))) as tables
              from pg_catalog.pg_rewrite rw
              join pg_catalog.pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = rw.oid
                                         and d.refclassid = 'pg_class'::regclass
              join pg_catalog.pg_class t on t.oid = d.refobjid
              join pg_catalog.pg_namespace tn on tn.oid = t.relnamespace
              where rw.ev_class = c.oid and t.oid <> c.oid and t.relkind in ('r', 'p', 'v', 'm', 'f')
                and (t.relrowsecurity or not \(SQLParts.apiRolesCanSelect("t")))
            ) dep
            where c.relkind = 'v' and n.nspname = any($1::text[]) and not \(SQLParts.isSecurityInvoker("c"))
              and api.roles is not null and dep.tables is not null and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid, body text);
                alter table public.notes enable row level security;
                create view public.all_notes as select id, body from public.notes;
                grant select on public.all_notes to anon, authenticated;
                """, reports: "view public.all_notes")
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid, body text);
            alter table public.notes enable row level security;
            create view public.all_notes with (security_invoker = true) as select id, body from public.notes;
            grant select on public.all_notes to anon, authenticated;
            """
        ])
}
