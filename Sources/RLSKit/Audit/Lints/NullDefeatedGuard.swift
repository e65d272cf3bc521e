extension Lint {
    static let nullDefeatedGuard = Lint(
        id: "1008", name: "null_defeated_guard", title: "Guard in a callable SECURITY DEFINER function skipped by NULL",
        level: .error, categories: [.security],
        description: """
            A SECURITY DEFINER function that anon or authenticated may call guards itself with \
            `if x <> 'owner' then raise …` (or `!=`, `x not in (…)`, `x <> all (array[…])`, \
            `if not (x = …)`, `if not (x = any (…))`, or an AND of such tests), where x comes from a lookup, \
            a function call or a JSON field. For a caller with no matching row (anon, a stranger) x is \
            NULL, `NULL <> 'owner'` is NULL, the IF is skipped and the function goes on with its \
            owner's rights. A test of the arguments alone (`jsonb_typeof(p_items) <> 'array'`) checks \
            what the caller passed, not who calls, and is not reported.
            """,
        remediation:
            "In <function>, write the guard as `if x is distinct from 'owner' then raise exception 'denied'`, or test `x is null` first, or raise `if not found` right after the SELECT INTO.",
        logic: .swift(needs: [.functions]) { catalog in
            // Helpers that raise rather than return NULL (`if r is null then raise … return r`).
            let nonNull = Set(
                catalog.functions.filter { FunctionBody($0.body).raisesOnNull }.map { $0.baseName.lowercased() })
            return catalog.functions.compactMap { f -> FindingDraft? in
                guard !f.isHelper, f.language == "plpgsql", !f.executableBy.isEmpty else { return nil }
                let guards = FunctionBody(f.body).nullDefeatedGuards(
                    nonNullCalls: nonNull, arguments: Set(f.argumentNames.filter { !$0.isEmpty }))
                guard let first = guards.first else { return nil }
                let roles = f.executableBy.keys.sorted().joined(separator: " and ")
                return FindingDraft(
                    object: f.object,
                    detail:
                        "SECURITY DEFINER function \(f.object.base), callable by \(roles), guards itself with `\(first)`, which NULL skips: a caller with no matching row gets past it",
                    metadata: ["guards": guards.joined(separator: "\n")])
            }
        },
        triggering: [
            .init(
                """
                create table public.members (account uuid, user_id uuid, role text);
                create function public.promote(acct uuid, member uuid) returns void language plpgsql
                  security definer set search_path = '' as $$
                declare v_role text;
                begin
                  select role into v_role from public.members where account = acct and user_id = auth.uid();
                  if v_role <> 'owner' then raise exception 'only owners'; end if;
                  update public.members set role = 'owner' where account = acct and user_id = member;
                end $$;
                """, reports: "function public.promote(uuid, uuid)"),
            .init(
                """
                create table public.members (account uuid, user_id uuid, role text);
                create function public.caller_role(acct uuid) returns jsonb language sql stable set search_path = ''
                  as $$ select jsonb_build_object('account_role', role) from public.members
                        where account = acct and user_id = auth.uid() $$;
                create function public.remove_member(acct uuid, member uuid) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if not ((select public.caller_role(acct)) ->> 'account_role' = 'owner') then
                    raise exception 'only owners';
                  end if;
                  delete from public.members where account = acct and user_id = member;
                end $$;
                revoke execute on function public.remove_member(uuid, uuid) from public, anon;
                grant execute on function public.remove_member(uuid, uuid) to authenticated;
                """, reports: "function public.remove_member(uuid, uuid)"),
            .init(
                """
                -- A custom JWT claim is NULL for users who do not have it.
                create table public.settings (key text primary key, value text);
                create function public.set_setting(k text, v text) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if auth.jwt() ->> 'user_role' != 'admin' then raise exception 'admins only'; end if;
                  update public.settings set value = v where key = k;
                end $$;
                """, reports: "function public.set_setting(text, text)"),
            .init(
                """
                -- The helper returns NULL for a stranger instead of raising: the guard is skipped.
                create table public.members (id bigint, account uuid, user_id uuid, role int);
                create function public.caller_membership(acct uuid) returns jsonb language sql stable
                  set search_path = '' as $$ select jsonb_build_object('role', role) from public.members
                    where account = acct and user_id = auth.uid() $$;
                create function public.hand_over(acct uuid, target bigint) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if (select public.caller_membership(acct) ->> 'role' <> '2') then raise exception 'owners only'; end if;
                  update public.members set role = 2 where id = target and account = acct;
                end $$;
                """, reports: "function public.hand_over(uuid, bigint)"),
            .init(
                """
                -- Lists of allowed roles: NULL <> 'a' AND NULL <> 'b', NULL NOT IN (…), NULL <> ALL (…) are all NULL.
                create table public.staff (team uuid, user_id uuid, role text);
                create function public.kick_a(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
                declare r text;
                begin
                  select role into r from public.staff where team = t and user_id = auth.uid();
                  if r <> 'lead' and r <> 'deputy' then raise exception 'leads only'; end if;
                  delete from public.staff where team = t and user_id = u;
                end $$;
                create function public.kick_b(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
                declare r text;
                begin
                  select role into r from public.staff where team = t and user_id = auth.uid();
                  if r not in ('lead', 'deputy') then raise exception 'leads only'; end if;
                  delete from public.staff where team = t and user_id = u;
                end $$;
                create function public.kick_c(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
                declare r text;
                begin
                  r := (select role from public.staff where team = t and user_id = auth.uid());
                  if r <> all (array['lead', 'deputy']) then raise exception 'leads only'; end if;
                  delete from public.staff where team = t and user_id = u;
                end $$;
                create function public.kick_d(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
                declare r text;
                begin
                  select role into r from public.staff where team = t and user_id = auth.uid();
                  if not (r = any (array['lead', 'deputy'])) then raise exception 'leads only'; end if;
                  delete from public.staff where team = t and user_id = u;
                end $$;
                """, reports: "function public.kick_a(uuid, uuid)", "function public.kick_b(uuid, uuid)",
                "function public.kick_c(uuid, uuid)", "function public.kick_d(uuid, uuid)"),
            .init(
                """
                -- A looked-up value stays a lookup inside a function call or next to an argument test.
                create table public.members (account uuid, user_id uuid, role text);
                create function public.close_a(acct uuid, items jsonb) returns void language plpgsql
                  security definer set search_path = '' as $$
                declare v_role text;
                begin
                  select role into v_role from public.members where account = acct and user_id = auth.uid();
                  if lower(v_role) <> 'owner' then raise exception 'only owners'; end if;
                  delete from public.members where account = acct;
                end $$;
                create function public.close_b(acct uuid, items jsonb) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if jsonb_typeof(items) <> 'array'
                    and (select role from public.members where account = acct and user_id = auth.uid()) <> 'owner'
                  then raise exception 'only owners'; end if;
                  delete from public.members where account = acct;
                end $$;
                """, reports: "function public.close_a(uuid, jsonb)", "function public.close_b(uuid, jsonb)"),
        ],
        nonTriggering: [
            """
            -- Tests of what the caller passed are argument checks, not access guards.
            create table public.stock (location uuid, qty int);
            create function public.load_stock(p_items jsonb) returns void language plpgsql
              security definer set search_path = '' as $$
            declare v_kind text;
            begin
              if jsonb_typeof(p_items) <> 'array' then raise exception 'items must be an array'; end if;
              v_kind := jsonb_typeof(p_items -> 0);
              if v_kind <> 'object' then raise exception 'items must be objects'; end if;
              insert into public.stock select (e ->> 'location')::uuid, 1 from jsonb_array_elements(p_items) e;
            end $$;
            """,
            """
            -- Length and mode of text and array arguments.
            create table public.stock (location uuid, qty int);
            create function public.move_stock(p_locations uuid[], p_mode text) returns void language plpgsql
              security definer set search_path = '' as $$
            begin
              if array_length(p_locations, 1) <> 2 then raise exception 'two locations'; end if;
              if lower(trim(p_mode)) not in ('move', 'copy') then raise exception 'bad mode'; end if;
              update public.stock set qty = qty - 1 where location = p_locations[1];
            end $$;
            """,
            """
            create table public.members (account uuid, user_id uuid, role text);
            create function public.promote(acct uuid, member uuid) returns void language plpgsql
              security definer set search_path = '' as $$
            declare v_role text;
            begin
              select role into v_role from public.members where account = acct and user_id = auth.uid();
              if v_role is distinct from 'owner' then raise exception 'only owners'; end if;
            end $$;
            """,
            """
            create table public.members (account uuid, user_id uuid, role text);
            create function public.promote(acct uuid, member uuid) returns void language plpgsql
              security definer set search_path = '' as $$
            declare v_role text;
            begin
              select role into strict v_role from public.members where account = acct and user_id = auth.uid();
              if not found then raise exception 'not a member'; end if;
              if v_role <> 'owner' then raise exception 'only owners'; end if;
            end $$;
            """,
            """
            -- count(*) is never NULL; the API always sets the role.
            create table public.members (account uuid, user_id uuid, role text);
            create function public.leave(acct uuid) returns void language plpgsql
              security definer set search_path = '' as $$
            declare n int;
            begin
              if (select auth.role()) <> 'authenticated' then raise exception 'sign in'; end if;
              select count(*) into n from public.members where account = acct and user_id = auth.uid();
              if n <> 1 then raise exception 'not a member'; end if;
              delete from public.members where account = acct and user_id = auth.uid();
            end $$;
            """,
            """
            -- Not callable through the API.
            create table public.members (account uuid, user_id uuid, role text);
            create function public.promote(acct uuid) returns void language plpgsql
              security definer set search_path = '' as $$
            declare v_role text;
            begin
              select role into v_role from public.members where account = acct and user_id = auth.uid();
              if v_role <> 'owner' then raise exception 'only owners'; end if;
            end $$;
            revoke execute on function public.promote(uuid) from public, anon, authenticated;
            """,
            """
            -- The helper raises when the caller has no role: its result is never NULL here.
            create table public.members (account uuid, user_id uuid, role text);
            create function public.caller_membership(acct uuid) returns jsonb language plpgsql stable
              set search_path = '' as $$
            declare m jsonb;
            begin
              select jsonb_build_object('account_role', role) into m from public.members
                where account = acct and user_id = auth.uid();
              if m ->> 'account_role' is null then raise exception 'not a member'; end if;
              return m;
            end $$;
            create function public.member_list(acct uuid) returns setof public.members language plpgsql
              security definer set search_path = '' as $$
            begin
              if (select public.caller_membership(acct) ->> 'account_role' <> 'owner') then
                raise exception 'owners only';
              end if;
              return query select * from public.members where account = acct;
            end $$;
            """,
            """
            -- An earlier IF tests the value for NULL and raises.
            create table public.members (id bigint, account uuid, user_id uuid, role int);
            create function public.hand_over(acct uuid, target bigint) returns void language plpgsql
              security definer set search_path = '' as $$
            declare v_role int;
            begin
              select role into v_role from public.members where account = acct and user_id = auth.uid();
              if v_role is null then raise exception 'not a member'; end if;
              if v_role != 2 then raise exception 'owners only'; end if;
              update public.members set role = 2 where id = target and account = acct;
            end $$;
            """,
            """
            -- Role lists written so that NULL raises too; an OR with another test is not this lint's.
            create table public.staff (team uuid, user_id uuid, role text);
            create function public.kick_a(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
            declare r text;
            begin
              select role into r from public.staff where team = t and user_id = auth.uid();
              if r is null or r not in ('lead', 'deputy') then raise exception 'leads only'; end if;
              delete from public.staff where team = t and user_id = u;
            end $$;
            create function public.kick_b(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
            declare r text;
            begin
              select role into r from public.staff where team = t and user_id = auth.uid();
              if not coalesce(r = any (array['lead', 'deputy']), false) then raise exception 'leads only'; end if;
              if r not in (select 'lead') then raise exception 'leads only'; end if;
              delete from public.staff where team = t and user_id = u;
            end $$;
            create function public.kick_c(t uuid, u uuid) returns void language plpgsql security definer set search_path = '' as $$
            declare r text;
            begin
              select role into r from public.staff where team = t and user_id = auth.uid();
              if not found then raise exception 'not on the team'; end if;
              if r <> 'lead' and r <> 'deputy' then raise exception 'leads only'; end if;
              delete from public.staff where team = t and user_id = u;
            end $$;
            """,
        ])
}
