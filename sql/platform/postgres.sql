-- rlskit, throwaway server only: what hosted Supabase grants its non-superuser postgres,
-- run as supabase_admin after the stand-in. Never run on a user's own database, where rlskit
-- changes no role. Idempotent.

-- The API roles, so migrations and tests may SET ROLE to them.
grant anon, authenticated, service_role to postgres;
-- The newest platform: schemas auth and storage belong to supabase_admin (their services have
-- all privileges on them), and postgres is a member of none of the services' roles, so it owns
-- nothing there: `alter table storage.objects …`, `create or replace function storage.foldername`,
-- `create table storage.x` fail, and `grant … on auth.users` grants nothing (postgres holds its
-- privileges without grant option). Policies on supautils' policy_grants tables, and dropping
-- their triggers, go through rlskit's server module (rlskit_sandbox.policy_grants), as supautils'.
alter schema auth owner to supabase_admin;
alter schema storage owner to supabase_admin;
grant all on schema auth to supabase_auth_admin;
grant all on schema storage to supabase_storage_admin;
-- The services log in with these search paths (the platform's role settings), so what they fire
-- (a sign-up trigger on auth.users) resolves names in them.
alter role supabase_auth_admin set search_path = auth;
alter role supabase_storage_admin set search_path = storage;
revoke supabase_storage_admin, supabase_auth_admin from postgres;
-- So postgres cannot SET ROLE to them either, as there. rlskit's harness signs users up as GoTrue
-- does from its own sessions, which log in as the APIs do (rlskit_sandbox.harness_roles):
-- PostgREST as authenticator, the Storage API as supabase_storage_admin, a member of authenticator
-- so it may switch to the API roles. Only rlskit can log in (its per-run passwords, or peer).
alter role authenticator login;
alter role supabase_storage_admin login;
grant authenticator to supabase_storage_admin;
grant usage on schema auth to postgres;
grant all on all tables in schema auth to postgres;
grant all on all sequences in schema auth to postgres;
grant all on all routines in schema auth to postgres;
revoke create on schema storage from postgres;
grant usage on schema storage to postgres;
grant all on all tables in schema storage to postgres;
grant all on all sequences in schema storage to postgres;
grant all on all routines in schema storage to postgres;
-- What a superuser's SECURITY DEFINER function of the stand-in runs as when the project calls
-- it (rlskit's server module switches to it): the platform's services, never a superuser.
grant supabase_storage_admin, supabase_auth_admin to rlskit_definer;
grant usage on schema auth, storage, extensions to rlskit_definer;
grant all on all tables in schema auth, storage to rlskit_definer;
grant all on all sequences in schema auth, storage to rlskit_definer;
grant all on all routines in schema auth, storage to rlskit_definer;

-- The platform grants service_role Vault's secrets (read and delete) and its two functions.
do $$
begin
  if to_regclass('vault.secrets') is not null then
    grant usage on schema vault to service_role;
    grant select, delete on vault.secrets, vault.decrypted_secrets to service_role;
    grant execute on function vault.create_secret(text, text, text, uuid),
      vault.update_secret(uuid, text, text, text, uuid) to service_role;
  end if;
end
$$;

-- postgres created schema extensions on the platform, before it was demoted.
alter schema extensions owner to postgres;
-- Never TRIGGER on what is not its own: a superuser writing such a table would run the trigger.
grant select, insert, update, delete, truncate, references on all tables in schema extensions to postgres with grant option;
grant all on all sequences in schema extensions to postgres with grant option;
grant all on all routines in schema extensions to postgres with grant option;
alter default privileges in schema extensions grant select, insert, update, delete, truncate, references on tables to postgres with grant option;
alter default privileges in schema extensions grant all on sequences to postgres with grant option;
-- Routines: not by default privileges, which would also hand postgres what an extension's script
-- restricts (pg_walinspect's WAL readers); the after-create trigger below grants the others.

do $$
declare
  s text;
begin
  -- realtime.messages belongs to supabase_realtime_admin, of which postgres is no member (Realtime's
  -- July 2026 migration): its policies go through policy_grants, as storage's.
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'supabase_realtime_admin') then
    create role supabase_realtime_admin nologin noinherit;
  end if;
  revoke supabase_realtime_admin from postgres;
  grant supabase_realtime_admin to rlskit_definer;
  if to_regclass('realtime.messages') is not null then
    alter table realtime.messages owner to supabase_realtime_admin;
  end if;

  -- On the platform postgres owns the Realtime publication, so migrations add tables to it.
  if exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    alter publication supabase_realtime owner to postgres;
  end if;
  foreach s in array array['realtime', 'graphql', 'graphql_public', 'vault', 'supabase_functions', 'net'] loop
    if to_regnamespace(s) is not null then
      execute format('grant usage on schema %I to postgres', s);
      execute format('grant select, insert, update, delete, truncate, references on all tables in schema %I to postgres', s);
      execute format('grant usage on schema %I to rlskit_definer', s);
      execute format('grant all on all tables in schema %I to rlskit_definer', s);
      execute format('grant all on all sequences in schema %I to rlskit_definer', s);
      execute format('grant all on all sequences in schema %I to postgres', s);
      execute format('grant all on all routines in schema %I to postgres', s);
      execute format('grant all on all routines in schema %I to rlskit_definer', s);
    end if;
  end loop;
end
$$;

-- The platform lets postgres use what an extension it created brings (supautils runs the
-- creation as the admin, then the extension's after-create script): an event trigger of the
-- admin's grants postgres the extension's own objects here, pg_cron's as there.
create or replace function rlskit.platform_after_create() returns event_trigger
language plpgsql security definer set search_path = '' as $$
declare
  cmd record;
  s text;
  o record;
  standin boolean;
begin
  for cmd in select * from pg_catalog.pg_event_trigger_ddl_commands() where command_tag = 'CREATE EXTENSION' loop
    for s in
      select distinct n.nspname from pg_catalog.pg_depend d
        join pg_catalog.pg_class c on d.classid = 'pg_catalog.pg_class'::regclass and c.oid = d.objid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
       where d.refclassid = 'pg_catalog.pg_extension'::regclass and d.refobjid = cmd.objid and d.deptype = 'e'
      union
      select distinct n.nspname from pg_catalog.pg_depend d
        join pg_catalog.pg_proc p on d.classid = 'pg_catalog.pg_proc'::regclass and p.oid = d.objid
        join pg_catalog.pg_namespace n on n.oid = p.pronamespace
       where d.refclassid = 'pg_catalog.pg_extension'::regclass and d.refobjid = cmd.objid and d.deptype = 'e'
    loop
      continue when s in ('pg_catalog', 'public', 'information_schema');
      -- CREATE only where postgres could create already or the extension made the schema:
      -- `create extension pg_trgm schema vault` gives nothing on vault.
      execute pg_catalog.format('grant %s on schema %I to postgres with grant option',
                     case when s <> 'cron'
                               and (pg_catalog.has_schema_privilege('postgres', s, 'CREATE')
                                    or exists (select 1 from pg_catalog.pg_depend d
                                                where d.classid = 'pg_catalog.pg_namespace'::regclass
                                                  and d.objid = s::regnamespace and d.refobjid = cmd.objid
                                                  and d.deptype = 'e'))
                          then 'all' else 'usage' end, s);
      execute pg_catalog.format('grant usage on schema %I to rlskit_definer', s);
    end loop;
    -- Only the extension's own tables, sequences and routines: never what else sits in those
    -- schemas (`create extension pg_trgm schema cron` must not open cron.job, a stand-in in
    -- `extensions` must not open pg_walinspect's readers there).
    standin := coalesce(pg_catalog.obj_description(cmd.objid, 'pg_extension'), '') like 'rlskit stand-in:%';
    for o in
      select c.oid::pg_catalog.regclass::text as name, c.relkind from pg_catalog.pg_depend d
        join pg_catalog.pg_class c on d.classid = 'pg_catalog.pg_class'::regclass and c.oid = d.objid
       where d.refclassid = 'pg_catalog.pg_extension'::regclass and d.refobjid = cmd.objid and d.deptype = 'e'
         and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
         and c.relnamespace not in ('pg_catalog'::regnamespace, 'public'::regnamespace, 'information_schema'::regnamespace)
    loop
      if o.relkind = 'S' then
        execute pg_catalog.format('grant all on sequence %s to postgres with grant option', o.name);
        execute pg_catalog.format('grant all on sequence %s to rlskit_definer', o.name);
      else
        execute pg_catalog.format('grant select, insert, update, delete, truncate, references on table %s to postgres with grant option', o.name);
        execute pg_catalog.format('grant all on table %s to rlskit_definer', o.name);
      end if;
    end loop;
    -- Of a real extension, the routines it left to PUBLIC only: what its script revoked
    -- (dblink_connect_u, pg_walinspect's readers) stays with those it was meant for. rlskit's
    -- stand-ins revoke from PUBLIC what the platform grants postgres.
    for o in
      select p.oid::pg_catalog.regprocedure::text as name from pg_catalog.pg_depend d
        join pg_catalog.pg_proc p on d.classid = 'pg_catalog.pg_proc'::regclass and p.oid = d.objid
       where d.refclassid = 'pg_catalog.pg_extension'::regclass and d.refobjid = cmd.objid and d.deptype = 'e'
         and p.pronamespace not in ('pg_catalog'::regnamespace, 'public'::regnamespace, 'information_schema'::regnamespace)
         and (standin or p.proacl is null
              or exists (select 1 from pg_catalog.aclexplode(p.proacl) a
                          where a.grantee = 0 and a.privilege_type = 'EXECUTE'))
    loop
      execute pg_catalog.format('grant all on routine %s to postgres with grant option', o.name);
      execute pg_catalog.format('grant all on routine %s to rlskit_definer', o.name);
    end loop;
    if cmd.object_identity = 'postgres_fdw' then
      -- The platform's after-create script makes postgres the wrapper's owner (which must be a
      -- superuser at that moment), so it may create servers on it.
      alter role postgres superuser;
      alter foreign data wrapper postgres_fdw owner to postgres;
      alter role postgres nosuperuser;
    end if;
    if cmd.object_identity = 'pg_cron' then
      -- cron.schedule writes cron.job as the extension's owner, the admin on the platform.
      -- supautils' extensions_parameter_overrides put it in pg_catalog whatever schema was asked;
      -- pg_catalog is pinned, so no dependency on a schema remains.
      update pg_catalog.pg_extension set extowner = current_user::regrole, extnamespace = 'pg_catalog'::regnamespace
       where oid = cmd.objid;
      delete from pg_catalog.pg_depend
       where classid = 'pg_catalog.pg_extension'::regclass and objid = cmd.objid
         and refclassid = 'pg_catalog.pg_namespace'::regclass;
      revoke all on table cron.job from postgres;
      grant select on table cron.job to postgres with grant option;
    end if;
  end loop;
end
$$;
drop event trigger if exists rlskit_platform_after_create;
create event trigger rlskit_platform_after_create on ddl_command_end when tag in ('CREATE EXTENSION')
  execute function rlskit.platform_after_create();
-- Also under session_replication_role = replica, which postgres may set.
alter event trigger rlskit_platform_after_create enable always;

-- supautils' privileged_role_allowed_configs: postgres may set these superuser settings (a dump's
-- seed starts with `set session_replication_role = replica`). The patterns (pgrst.*,
-- plan_filter.*) are custom settings anyone may set already.
do $$
declare
  p text;
begin
  if to_regclass('pg_catalog.pg_parameter_acl') is null then
    return;
  end if;
  for p in
    select name from pg_catalog.pg_settings
     where name = any (array['auto_explain.log_min_duration', 'auto_explain.log_nested_statements',
                             'log_lock_waits', 'log_min_messages', 'pg_net.batch_size', 'pg_net.ttl', 'pgaudit.log',
                             'pgaudit.log_catalog', 'pgaudit.log_client', 'pgaudit.log_level', 'pgaudit.log_relation',
                             'pgaudit.log_rows', 'pgaudit.log_statement', 'pgaudit.log_statement_once',
                             'pgaudit.role', 'safeupdate.enabled', 'session_replication_role', 'track_io_timing'])
       and context = 'superuser'
  loop
    execute format('grant set on parameter %I to postgres', p);
  end loop;
end
$$;
