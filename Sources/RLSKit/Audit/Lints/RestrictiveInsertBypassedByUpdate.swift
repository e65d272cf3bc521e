extension Lint {
    static let restrictiveInsertBypassedByUpdate = Lint(
        id: "1011", name: "restrictive_insert_bypassed_by_update",
        title: "Restrictive INSERT check that UPDATE gets around",
        level: .warn, categories: [.security],
        description: """
            A restrictive `for insert` policy limits where a new row may go (which study, which org), \
            but a permissive UPDATE or ALL policy for the same role lets it change the columns that \
            check reads, its WITH CHECK (its USING, without one) does not contain the restrictive \
            check, and no restrictive UPDATE or ALL policy applies: a user inserts a row where it is \
            allowed and then moves it by UPDATE where INSERT may not put it. Not reported when a \
            column UPDATE grant leaves every such column out, or an enabled BEFORE UPDATE row trigger \
            (of those columns, or of all) whose function names the column may refuse the change.
            """,
        remediation:
            "Make the restrictive policy `for all` (or add the same check as a restrictive `for update` policy's WITH CHECK), or grant UPDATE only on the other columns.",
        logic: .sql(
            """
            with pol as (
              select p.polrelid, p.polname, p.polcmd, p.polpermissive, p.polroles,
                     pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) as wc,
                     -- Output names (`AS id`) are not columns of the row.
                     pg_catalog.regexp_replace(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid),
                                               ' AS [[:alnum:]_"]+', '', 'g') as wc_cols,
                     pg_catalog.pg_get_expr(p.polqual, p.polrelid) as q
              from pg_catalog.pg_policy p
              -- Deparsing opens the table: only tables with a restrictive INSERT-only policy.
              -- (one scan of pg_policy, not one lookup per policy)
              where p.polrelid in (select r.polrelid from pg_catalog.pg_policy r
                                   where r.polcmd = 'a' and not r.polpermissive)
            )
            select distinct on (r.polrelid, r.polname)
                   n.nspname as schema, c.relname as name, 'policy' as kind, r.polname::text as member,
                   format('%s.%s: restrictive policy %s checks only INSERT, but permissive %s %s %s %s UPDATE %s without that check (no restrictive UPDATE policy repeats it): a row can be moved where INSERT may not put it',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), \(SQLParts.ident("r.polname")),
                          case when u.n = 1 then 'policy' else 'policies' end, u.names,
                          case when u.n = 1 then 'lets' else 'let' end, ar.rolname, cols.names) as detail,
                   jsonb_build_object('update_policies', u.names, 'role', ar.rolname::text,
                                      'columns', cols.names)::text as metadata
            from pol r
            join pg_catalog.pg_class c on c.oid = r.polrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            join pg_catalog.pg_roles ar on ar.rolname in ('anon', 'authenticated')
                                       and (0 = any(r.polroles) or ar.oid = any(r.polroles))
            cross join lateral (
              select string_agg(\(SQLParts.ident("u.polname")), ', ' order by u.polname) as names,
                     count(*) as n
              from pol u
              where u.polrelid = r.polrelid and u.polpermissive and u.polcmd in ('w', '*')
                and (0 = any(u.polroles) or ar.oid = any(u.polroles))
                and pg_catalog.strpos(coalesce(u.wc, u.q, ''), r.wc) = 0
            ) u
            cross join lateral (
              select string_agg(\(SQLParts.ident("a.attname")), ', ' order by a.attnum) as names
              from pg_catalog.pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                -- The row's own columns: unqualified at the top, `table.col` in subqueries (`s.id` is not).
                and (r.wc_cols ~ ('(^|[^.[:alnum:]_"])' || a.attname || '\\M(?!\\s*\\()')
                     or pg_catalog.strpos(r.wc_cols, c.relname || '.' || a.attname) > 0)
                and has_column_privilege(ar.oid, c.oid, a.attnum, 'UPDATE')
                and not exists (
                  select 1 from pg_catalog.pg_trigger t join pg_catalog.pg_proc tp on tp.oid = t.tgfoid
                  where t.tgrelid = c.oid and not t.tgisinternal and t.tgenabled <> 'D'
                    and t.tgtype & 19 = 19  -- row, before, update
                    and (pg_catalog.cardinality(t.tgattr::int2[]) = 0 or a.attnum = any(t.tgattr::int2[]))
                    and tp.prosrc ~* ('\\m' || a.attname || '\\M'))
            ) cols
            where not r.polpermissive and r.polcmd = 'a' and r.wc is not null and cols.names is not null
              and u.names is not null
              and c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1::text[])
              and not exists (
                select 1 from pol x
                where x.polrelid = r.polrelid and not x.polpermissive and x.polcmd in ('w', '*')
                  and (0 = any(x.polroles) or ar.oid = any(x.polroles)))
              and \(SQLParts.notExtensionMember("c"))
            order by r.polrelid, r.polname, ar.rolname desc
            """),
        triggering: [
            .init(
                """
                -- Participants join open studies only, then move their enrollment into an invite-only one.
                create table public.studies (id uuid primary key, invite_only boolean not null default false);
                create table public.enrollments (id int primary key, user_id uuid, study_id uuid references public.studies);
                alter table public.enrollments enable row level security;
                grant select, insert, update on public.enrollments to authenticated;
                create policy "own enrollments" on public.enrollments for all to authenticated
                  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
                create policy "open studies only" on public.enrollments as restrictive for insert to authenticated
                  with check (study_id in (select s.id as user_id from public.studies s where not s.invite_only));
                """, reports: "policy \"open studies only\" on public.enrollments")
        ],
        nonTriggering: [
            """
            -- The restrictive check covers UPDATE too, or a restrictive UPDATE policy repeats it.
            create table public.studies (id uuid primary key, invite_only boolean not null default false);
            create table public.enrollments (id int primary key, user_id uuid, study_id uuid);
            create table public.visits (id int primary key, user_id uuid, study_id uuid);
            alter table public.enrollments enable row level security;
            alter table public.visits enable row level security;
            grant select, insert, update on public.enrollments, public.visits to authenticated;
            create policy "own enrollments" on public.enrollments for all to authenticated
              using ((select auth.uid()) = user_id);
            create policy "open studies only" on public.enrollments as restrictive for all to authenticated
              using (true) with check (study_id in (select s.id from public.studies s where not s.invite_only));
            create policy "own visits" on public.visits for all to authenticated using ((select auth.uid()) = user_id);
            create policy "open visits" on public.visits as restrictive for insert to authenticated
              with check (study_id in (select s.id from public.studies s where not s.invite_only));
            create policy "open visits on update" on public.visits as restrictive for update to authenticated
              using (true) with check (study_id in (select s.id from public.studies s where not s.invite_only));
            """,
            """
            -- The UPDATE policy repeats the check; elsewhere the column cannot be updated, or the check names no column.
            create table public.studies (id uuid primary key, invite_only boolean not null default false);
            create table public.enrollments (id int primary key, user_id uuid, study_id uuid);
            create table public.visits (id int primary key, user_id uuid, study_id uuid, note text);
            alter table public.enrollments enable row level security;
            alter table public.visits enable row level security;
            grant select, insert, update on public.enrollments to authenticated;
            grant select, insert, update (note) on public.visits to authenticated;
            create policy "own enrollments" on public.enrollments for update to authenticated
              using ((select auth.uid()) = user_id)
              with check ((select auth.uid()) = user_id
                          and study_id in (select s.id from public.studies s where not s.invite_only));
            create policy "own enrollments in" on public.enrollments for insert to authenticated
              with check ((select auth.uid()) = user_id);
            create policy "open studies only" on public.enrollments as restrictive for insert to authenticated
              with check (study_id in (select s.id from public.studies s where not s.invite_only));
            create policy "signed in" on public.enrollments as restrictive for insert to authenticated
              with check ((select auth.role()) = 'authenticated');
            create policy "own visits" on public.visits for all to authenticated using ((select auth.uid()) = user_id);
            create policy "open visits" on public.visits as restrictive for insert to authenticated
              with check (study_id in (select s.id from public.studies s where not s.invite_only));
            """,
        ])
}
