extension Lint {
    /// Column names that usually hold a role, a flag the app trusts, a plan or money: whole
    /// names or the last word of one (`is_admin`, `user_role`, `account_balance`, `email_verified`).
    static let privilegeColumnWords = [
        "admin", "superuser", "staff", "moderator", "verified", "approved", "premium", "paid", "banned", "correct",
        "winner", "role", "roles", "plan", "tier", "balance", "credit", "credits", "points", "score", "status",
        "permission", "permissions", "karma", "coins", "quota",
    ]

    /// Values of a `status` column that grant something: a status holding none of them is a
    /// workflow the row's owner moves (a product's `active`, a match's `accepted`).
    static let privilegedStatusValues = [
        "paid", "approved", "verified", "won", "winner", "banned", "blocked", "suspended", "premium", "refunded",
        "settled",
    ]

    /// SQL, true when column `a` of table `c` is a privilege rather than a workflow its owner
    /// moves: any column but a `status`; a `status` only when its enum labels or a check
    /// constraint name a privileged value, or a function of the database writes it (the server
    /// settles it).
    static let privilegeEvidenceSQL = """
        (lower(a.attname) !~ '(^|_)status$'
         or exists (select 1 from pg_catalog.pg_enum e where e.enumtypid = a.atttypid
                    and e.enumlabel ~* '(^|_)(\(privilegedStatusValues.joined(separator: "|")))($|_)')
         or exists (select 1 from pg_catalog.pg_constraint cc
                    where cc.conrelid = c.oid and cc.contype = 'c' and a.attnum = any(cc.conkey)
                      and pg_catalog.pg_get_constraintdef(cc.oid)
                          ~* '''(\\w*_)?(\(privilegedStatusValues.joined(separator: "|")))(_\\w*)?''')
         or exists (select 1 from pg_catalog.pg_proc pr
                    where pr.prosrc ~* ('\\mupdate\\s[^;]*\\m' || regexp_replace(c.relname, '\\W', '.', 'g')
                                        || '\\M[^;]*\\mset\\M[^;]*\\m' || a.attname || '\\M\\s*=')
                       or (pr.oid in (select t.tgfoid from pg_catalog.pg_trigger t where t.tgrelid = c.oid)
                           and pr.prosrc ~* ('\\mnew\\s*\\.\\s*' || a.attname || '\\M\\s*:?='))))
        """

    static let workflowNote =
        "its values name no privilege and no function of the database sets it: a workflow the owner moves, so it is listed for review only"

    static let ownRowUpdatePrivilegeColumn = Lint(
        id: "1009", name: "own_row_update_privilege_column",
        title: "Users may set their own role, flag, plan or balance",
        level: .warn, categories: [.security],
        description: """
            A permissive UPDATE or ALL policy for authenticated reads the caller's identity in USING \
            (users update their own rows, or their group's), and authenticated may write a column of \
            that table named like a role, a flag, a plan or money (whole name or last word: \
            \(privilegeColumnWords.joined(separator: ", "))). Nothing stops a user from setting \
            their own `is_admin`, `role`, `plan` or `balance`: the most common privilege escalation \
            on Supabase. Not reported when a column UPDATE grant leaves the column out, when an \
            enabled BEFORE UPDATE row trigger on the table (of that column, or of all) can refuse the \
            change, or when the policy's WITH CHECK (its USING, without one) or a restrictive \
            UPDATE policy's names the column (taken as pinning it, e.g. `role = (select role from \
            … where id = auth.uid())`; rlskit does not prove the comparison). Generated columns are \
            skipped. INSERT too: a permissive INSERT policy (not ALL: that one is the UPDATE case) for authenticated whose WITH CHECK \
            reads the caller's identity, on a table where authenticated may insert such a column that \
            has a default (the value the app sets; a column without one is the user's to fill), unless \
            a column INSERT grant leaves it out, a check constraint names it, an enabled BEFORE INSERT \
            row trigger's function names it (taken as resetting it), or the policy's WITH CHECK (or a \
            restrictive INSERT policy's) names it. A column whose only privilege word is `status` is \
            often a workflow the row's owner moves (a product's `active`, a match's `accepted`): it is \
            reported when its enum labels or a check constraint name a privileged value \
            (\(privilegedStatusValues.joined(separator: ", "))) or a function of the database sets it \
            (an `update … set status =`, or a trigger of the table assigning `new.status`), and \
            listed at INFO otherwise.
            """,
        remediation:
            "Grant UPDATE (and INSERT) only on the columns users may set (revoke update on the table from authenticated; grant update (name, avatar_url) on it), or pin the column in WITH CHECK, or refuse or reset it in a BEFORE UPDATE (BEFORE INSERT) trigger.",
        logic: .sql(
            """
            with checks as (
              select p.polrelid, p.polname, p.polpermissive,
                     coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid),
                              pg_catalog.pg_get_expr(p.polqual, p.polrelid), '') as check_text,
                     coalesce(pg_catalog.pg_get_expr(p.polqual, p.polrelid), '') as using_text
              from pg_catalog.pg_policy p
              join pg_catalog.pg_roles ar on ar.rolname = 'authenticated'
              where p.polcmd in ('w', '*') and (0 = any(p.polroles) or ar.oid = any(p.polroles))
                -- Deparsing opens the table: only where a privilege-named column exists.
                and exists (select 1 from pg_catalog.pg_attribute a
                            where a.attrelid = p.polrelid and a.attnum > 0 and not a.attisdropped
                              and lower(a.attname) ~ '(^|_)(\(privilegeColumnWords.joined(separator: "|")))$')
            ), ins as (
              -- INSERT: the row a user adds; a privilege column with a default is the app's to set.
              -- INSERT-only: an ALL policy hands the row to the user, and is the UPDATE case.
              select p.polrelid, p.polname, p.polpermissive,
                     coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid), '') as check_text
              from pg_catalog.pg_policy p
              join pg_catalog.pg_roles ar on ar.rolname = 'authenticated'
              where p.polcmd = 'a' and (0 = any(p.polroles) or ar.oid = any(p.polroles))
                -- Only columns with a default, each tested once (not once per policy).
                and p.polrelid in (select d.adrelid from pg_catalog.pg_attrdef d
                                   join pg_catalog.pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
                                   where lower(a.attname) ~ '(^|_)(\(privilegeColumnWords.joined(separator: "|")))$')
            )
            select n.nspname as schema, c.relname as name, 'policy' as kind, k.polname::text as member,
                   format('%s.%s: policy %s lets authenticated update their own rows, and authenticated may write %s, which no column grant, BEFORE UPDATE trigger or WITH CHECK protects%s',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), \(SQLParts.ident("k.polname")), cols.names,
                          case when not cols.privileged then '; \(workflowNote)' else '' end) as detail,
                   (jsonb_build_object('columns', cols.names)
                    || case when cols.privileged then '{}'::jsonb else '{"level": "info"}'::jsonb end)::text as metadata
            from checks k
            join pg_catalog.pg_class c on c.oid = k.polrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            join pg_catalog.pg_roles ar on ar.rolname = 'authenticated'
            cross join lateral (
              select string_agg(\(SQLParts.ident("a.attname")), ', ' order by a.attnum) as names,
                     bool_or(\(privilegeEvidenceSQL)) as privileged
              from pg_catalog.pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                and lower(a.attname) ~ '(^|_)(\(privilegeColumnWords.joined(separator: "|")))$'
                and has_column_privilege(ar.oid, c.oid, a.attnum, 'UPDATE')
                -- Named in this policy's check or a restrictive one's: taken as pinned (not `role(`).
                and not exists (
                  select 1 from checks r
                  where r.polrelid = c.oid and (r.polname = k.polname or not r.polpermissive)
                    and r.check_text ~ ('\\m' || a.attname || '\\M(?!\\s*\\()'))
                and not exists (
                  select 1 from pg_catalog.pg_trigger t
                  where t.tgrelid = c.oid and not t.tgisinternal and t.tgenabled <> 'D'
                    and t.tgtype & 19 = 19  -- row, before, update
                    and (pg_catalog.cardinality(t.tgattr::int2[]) = 0 or a.attnum = any(t.tgattr::int2[])))
            ) cols
            where k.polpermissive and c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1::text[])
              -- The caller named only to be excluded (`user_id <> auth.uid()`: owners edit others) is no own row.
              and regexp_replace(k.using_text,
                    '(<>|!=)\\s*(\\(\\s*SELECT\\s+auth\\.uid\\(\\)\\s+AS\\s+uid\\s*\\)|auth\\.uid\\(\\))', '', 'gi')
                  ~ 'auth\\.(uid|jwt)\\(\\)|request\\.jwt\\.claim'
              and cols.names is not null and \(SQLParts.notExtensionMember("c"))
            union all
            select n.nspname, c.relname, 'policy', k.polname::text,
                   format('%s.%s: policy %s lets authenticated insert their own rows, and authenticated may set %s on insert, which has a default that no column grant, BEFORE INSERT trigger, check constraint or WITH CHECK protects%s',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), \(SQLParts.ident("k.polname")), cols.names,
                          case when not cols.privileged then '; \(workflowNote)' else '' end),
                   (jsonb_build_object('columns', cols.names)
                    || case when cols.privileged then '{}'::jsonb else '{"level": "info"}'::jsonb end)::text
            from ins k
            join pg_catalog.pg_class c on c.oid = k.polrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            join pg_catalog.pg_roles ar on ar.rolname = 'authenticated'
            cross join lateral (
              select string_agg(\(SQLParts.ident("a.attname")), ', ' order by a.attnum) as names,
                     bool_or(\(privilegeEvidenceSQL)) as privileged
              from pg_catalog.pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                and a.attidentity = '' and a.atthasdef
                and lower(a.attname) ~ '(^|_)(\(privilegeColumnWords.joined(separator: "|")))$'
                and has_column_privilege(ar.oid, c.oid, a.attnum, 'INSERT')
                and not exists (
                  select 1 from ins r
                  where r.polrelid = c.oid and (r.polname = k.polname or not r.polpermissive)
                    and r.check_text ~ ('\\m' || a.attname || '\\M(?!\\s*\\()'))
                and not exists (
                  select 1 from pg_catalog.pg_constraint cc
                  where cc.conrelid = c.oid and cc.contype = 'c' and a.attnum = any(cc.conkey))
                -- A BEFORE INSERT row trigger whose function names the column may reset it.
                and not exists (
                  select 1 from pg_catalog.pg_trigger t join pg_catalog.pg_proc tp on tp.oid = t.tgfoid
                  where t.tgrelid = c.oid and not t.tgisinternal and t.tgenabled <> 'D'
                    and t.tgtype & 7 = 7  -- row, before, insert
                    and tp.prosrc ~* ('\\m' || a.attname || '\\M'))
            ) cols
            where k.polpermissive and c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1::text[])
              and regexp_replace(k.check_text,
                    '(<>|!=)\\s*(\\(\\s*SELECT\\s+auth\\.uid\\(\\)\\s+AS\\s+uid\\s*\\)|auth\\.uid\\(\\))', '', 'gi')
                  ~ 'auth\\.(uid|jwt)\\(\\)|request\\.jwt\\.claim'
              and cols.names is not null and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.profiles (id uuid primary key, full_name text, is_admin boolean not null default false);
                alter table public.profiles enable row level security;
                grant select, update on public.profiles to authenticated;
                create policy "own profile" on public.profiles for update to authenticated
                  using ((select auth.uid()) = id);
                """, reports: "policy \"own profile\" on public.profiles"),
            .init(
                """
                create table public.picks (id int primary key, user_id uuid, game int, correct boolean);
                alter table public.picks enable row level security;
                grant select, insert, update on public.picks to authenticated;
                create policy "own picks" on public.picks for all to authenticated
                  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
                """, reports: "policy \"own picks\" on public.picks"),
            // A trigger of another column protects only that one.
            .init(
                """
                create table public.accounts (id uuid primary key, name text, plan text not null default 'free');
                alter table public.accounts enable row level security;
                grant select, update on public.accounts to authenticated;
                create function public.touch() returns trigger language plpgsql as $$ begin return new; end $$;
                create trigger touch before update of name on public.accounts for each row execute function public.touch();
                create policy "own account" on public.accounts for update to authenticated
                  using (id = (select auth.uid())) with check (id = (select auth.uid()));
                """, reports: "policy \"own account\" on public.accounts"),
            .init(
                """
                -- INSERT: a player adds a bet already settled as won; the trigger fills another column,
                -- and the server's settle function says the status is its to set.
                create table public.bets (id int generated always as identity primary key, user_id uuid, game int,
                  status text not null default 'pending', placed_at timestamptz);
                alter table public.bets enable row level security;
                grant select, insert on public.bets to authenticated;
                create function public.stamp() returns trigger language plpgsql as $$
                begin new.placed_at := now(); return new; end $$;
                create trigger stamp before insert on public.bets for each row execute function public.stamp();
                create function public.settle(bet int, outcome text) returns void language sql as $$
                  update public.bets set status = outcome where id = bet $$;
                create policy "own bets" on public.bets for insert to authenticated
                  with check ((select auth.uid()) = user_id);
                """, reports: "policy \"own bets\" on public.bets"),
            .init(
                """
                -- A status whose values include paid: a customer marks their own order paid.
                create table public.orders (id int primary key, customer uuid, total int,
                  status text not null default 'pending' check (status in ('pending', 'paid', 'shipped')));
                alter table public.orders enable row level security;
                grant select, update on public.orders to authenticated;
                create policy "own orders" on public.orders for update to authenticated
                  using (customer = (select auth.uid()));
                """, reports: "policy \"own orders\" on public.orders"),
            .init(
                """
                -- An enum status with an approved label: a seller approves their own listing.
                create type public.review_state as enum ('draft', 'in_review', 'approved');
                create table public.listings (id int primary key, seller uuid, title text,
                  listing_status public.review_state not null default 'draft');
                alter table public.listings enable row level security;
                grant select, update on public.listings to authenticated;
                create policy "sellers edit listings" on public.listings for all to authenticated
                  using (seller = (select auth.uid())) with check (seller = (select auth.uid()));
                """, reports: "policy \"sellers edit listings\" on public.listings"),
        ],
        nonTriggering: [
            // Owners change other members' roles; their own row is excluded.
            """
            create table public.team_members (team_id uuid, user_id uuid, role text not null default 'member');
            alter table public.team_members enable row level security;
            grant select, update on public.team_members to authenticated;
            create function public.is_owner(t uuid) returns boolean language sql stable as $$ select false $$;
            create policy members_role on public.team_members for update to authenticated
              using (public.is_owner(team_id) and user_id <> (select auth.uid())) with check (public.is_owner(team_id));
            """,
            """
            create table public.profiles (id uuid primary key, full_name text, is_admin boolean not null default false);
            alter table public.profiles enable row level security;
            revoke update on public.profiles from authenticated;
            grant select, update (full_name) on public.profiles to authenticated;
            create policy "own profile" on public.profiles for update to authenticated
              using ((select auth.uid()) = id);
            """,
            """
            create table public.profiles (id uuid primary key, full_name text, is_admin boolean not null default false);
            alter table public.profiles enable row level security;
            grant select, update on public.profiles to authenticated;
            create function public.keep_admin() returns trigger language plpgsql as $$
            begin
              if new.is_admin is distinct from old.is_admin then raise exception 'is_admin is set by the service'; end if;
              return new;
            end $$;
            create trigger keep_admin before update on public.profiles for each row execute function public.keep_admin();
            create policy "own profile" on public.profiles for update to authenticated
              using ((select auth.uid()) = id);
            """,
            """
            create table public.members (id uuid primary key, name text, role text not null default 'member');
            alter table public.members enable row level security;
            grant select, update on public.members to authenticated;
            create policy "own membership" on public.members for update to authenticated
              using ((select auth.uid()) = id)
              with check (role = (select m.role from public.members m where m.id = (select auth.uid())));
            """,
            """
            create table public.accounts (id uuid primary key, name text, plan text not null default 'free');
            alter table public.accounts enable row level security;
            grant select on public.accounts to authenticated;
            grant select, update on public.accounts to service_role;
            create policy "billing" on public.accounts for update to service_role using (id = (select auth.uid()));
            """,
            """
            -- INSERT: a column grant leaves status out, WITH CHECK pins is_verified, the user enters their own score.
            create table public.bets (id int primary key, user_id uuid, status text not null default 'pending',
              is_verified boolean default false, score int);
            alter table public.bets enable row level security;
            revoke insert on public.bets from authenticated;
            grant select, insert (id, user_id, is_verified, score) on public.bets to authenticated;
            create policy "own bets" on public.bets for insert to authenticated
              with check ((select auth.uid()) = user_id and not is_verified);
            """,
            """
            -- INSERT: a BEFORE INSERT trigger resets status; a check constraint bounds tier; an ALL policy
            -- whose UPDATE a trigger guards is the owner's own record.
            create table public.trials (id int primary key, user_id uuid, status text not null default 'draft');
            alter table public.trials enable row level security;
            grant select, insert, update on public.trials to authenticated;
            create function public.guard_trial() returns trigger language plpgsql as $$ begin return new; end $$;
            create trigger guard_trial before update on public.trials for each row execute function public.guard_trial();
            create policy "own trials" on public.trials for all to authenticated using ((select auth.uid()) = user_id);
            create table public.bets (id int primary key, user_id uuid, status text not null default 'pending',
              tier text not null default 'free' check (tier = 'free'));
            alter table public.bets enable row level security;
            grant select, insert on public.bets to authenticated;
            create function public.reset_status() returns trigger language plpgsql as $$
            begin new.status := 'pending'; return new; end $$;
            create trigger reset_status before insert on public.bets for each row execute function public.reset_status();
            create policy "own bets" on public.bets for insert to authenticated
              with check ((select auth.uid()) = user_id);
            """,
            """
            -- Listed at INFO: a product's status is the seller's switch; nothing else sets it.
            create table public.products (id int primary key, seller uuid, name text, status text default 'active');
            alter table public.products enable row level security;
            grant select, update on public.products to authenticated;
            create policy "own products" on public.products for all to authenticated
              using (seller = (select auth.uid()));
            """,
            """
            -- Listed at INFO: either side of a match answers it; no value grants anything.
            create table public.matches (id int primary key, first_user uuid, second_user uuid,
              status text not null default 'pending' check (status in ('pending', 'accepted', 'declined')));
            alter table public.matches enable row level security;
            grant select, update on public.matches to authenticated;
            create policy "my matches" on public.matches for update to authenticated
              using ((select auth.uid()) in (first_user, second_user));
            """,
        ])
}
