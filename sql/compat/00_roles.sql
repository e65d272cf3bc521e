-- rlskit compat layer: the roles Supabase's API servers switch between.
-- Idempotent. Roles are cluster-wide, so another database in the same cluster may
-- already have created them: we create only what is missing and never alter an
-- existing role (it may belong to a real Supabase install).
-- CREATE ROLE ... BYPASSRLS needs a superuser on PG15: run this as one.

do $$
declare
  r record;
  api_role text;
begin
  for r in
    select * from (values
      -- name,                    attributes,                          statement_timeout
      ('anon',                   'nologin inherit',                   '3s'),
      ('authenticated',          'nologin inherit',                   '8s'),
      ('service_role',           'nologin inherit bypassrls',         null),
      ('authenticator',          'login noinherit',                   null),
      -- own the auth / storage tables; the stand-in never logs in as them
      ('supabase_auth_admin',    'nologin noinherit',                 null),
      ('supabase_storage_admin', 'nologin noinherit',                 null)
    ) as t(name, attrs, timeout)
  loop
    if not exists (select 1 from pg_catalog.pg_roles where rolname = r.name) then
      begin
        execute format('create role %I %s', r.name, r.attrs);
        if r.timeout is not null then
          execute format('alter role %I set statement_timeout = %L', r.name, r.timeout);
        end if;
        -- The services log in with their own schema as search_path, as on the platform.
        if r.name in ('supabase_auth_admin', 'supabase_storage_admin') then
          execute format('alter role %I set search_path = %I', r.name,
                         case r.name when 'supabase_auth_admin' then 'auth' else 'storage' end);
        end if;
      exception when duplicate_object or unique_violation then
        -- another session (another database of this cluster) won the race
        null;
      end;
    end if;
  end loop;

  -- The API servers log in as authenticator and SET ROLE per request; NOINHERIT
  -- means it holds none of the three roles' privileges until it switches.
  foreach api_role in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (
      select 1
      from pg_catalog.pg_auth_members m
      join pg_catalog.pg_roles g on g.oid = m.roleid
      join pg_catalog.pg_roles u on u.oid = m.member
      where g.rolname = api_role and u.rolname = 'authenticator'
    ) then
      execute format('grant %I to authenticator', api_role);
    end if;
  end loop;
end
$$;

-- No default privileges on purpose: current Supabase projects no longer
-- auto-grant new public tables, so migrations must GRANT explicitly.
grant usage on schema public to anon, authenticated, service_role;
