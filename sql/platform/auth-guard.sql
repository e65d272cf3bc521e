-- rlskit, throwaway server only: the services' schemas as the platform guards them for postgres.
-- postgres owns nothing in auth, storage or realtime (it is a member of none of their owners);
-- rlskit's server module lets it write policies on supautils' policy_grants tables and drop their
-- triggers. It may still SET ROLE to supabase_auth_admin or supabase_storage_admin (rlskit signs
-- users up as GoTrue does in its sessions), so DDL there by a session that is not the admin's
-- fails here as it does on the platform, also after such a switch.

create or replace function rlskit.platform_auth_guard() returns event_trigger
language plpgsql set search_path = '' as $$
declare
  cmd record;
  what text;
  -- supautils' policy_grants.
  grants text[] := array['auth.users', 'auth.identities', 'auth.sessions', 'auth.refresh_tokens',
                         'auth.audit_log_entries', 'realtime.messages', 'realtime.subscription', 'storage.buckets',
                         'storage.migrations', 'storage.objects', 'storage.s3_multipart_uploads',
                         'storage.s3_multipart_uploads_parts'];
  guarded text[] := array['auth', 'storage', 'realtime'];
begin
  -- Inline, no helper: a role that set itself to supabase_auth_admin cannot use schema rlskit.
  if (select rolsuper from pg_catalog.pg_roles where rolname = current_user)
     or (select rolsuper from pg_catalog.pg_roles where rolname = session_user) then
    return;
  end if;
  if tg_event = 'sql_drop' then
    for cmd in select * from pg_catalog.pg_event_trigger_dropped_objects() where schema_name = any (guarded) loop
      continue when cmd.object_type = 'trigger'
        or (cmd.object_type = 'policy' and cmd.address_names[1] || '.' || cmd.address_names[2] = any (grants));
      -- A table's parts are the table's, as PostgreSQL names them: "must be owner of table users".
      if cmd.object_type in ('table column', 'table constraint', 'default value', 'policy', 'rule') then
        raise exception 'must be owner of table %', cmd.address_names[2] using errcode = '42501';
      end if;
      what := coalesce(cmd.address_names[array_length(cmd.address_names, 1)], cmd.object_identity);
      raise exception 'must be owner of % %', cmd.object_type, what using errcode = '42501';
    end loop;
    return;
  end if;
  for cmd in select * from pg_catalog.pg_event_trigger_ddl_commands() where schema_name = any (guarded) loop
    continue when cmd.object_type = 'trigger'
      or (cmd.object_type = 'policy'
          and (select c.relnamespace::pg_catalog.regnamespace::text || '.' || c.relname::text
                 from pg_catalog.pg_policy p join pg_catalog.pg_class c on c.oid = p.polrelid
                where p.oid = cmd.objid) = any (grants));
    if cmd.command_tag like 'CREATE %' and cmd.object_type in ('table', 'view', 'function', 'type', 'sequence') then
      raise exception 'permission denied for schema %', cmd.schema_name using errcode = '42501';
    end if;
    -- A new index is its table's.
    if cmd.object_type = 'index' and cmd.command_tag = 'CREATE INDEX' then
      select c.relname::text into what from pg_catalog.pg_index i join pg_catalog.pg_class c on c.oid = i.indrelid
       where i.indexrelid = cmd.objid;
      raise exception 'must be owner of table %', what using errcode = '42501';
    end if;
    what := coalesce((pg_catalog.pg_identify_object_as_address(cmd.classid, cmd.objid, cmd.objsubid)).object_names[2],
                     cmd.object_identity);
    raise exception 'must be owner of %',
      case when cmd.object_type in ('table column', 'table constraint', 'default value', 'policy', 'rule') then 'table'
           else cmd.object_type end || ' ' || what
      using errcode = '42501';
  end loop;
end
$$;

drop event trigger if exists rlskit_platform_auth_ddl;
drop event trigger if exists rlskit_platform_auth_drop;
create event trigger rlskit_platform_auth_ddl on ddl_command_end execute function rlskit.platform_auth_guard();
create event trigger rlskit_platform_auth_drop on sql_drop execute function rlskit.platform_auth_guard();
-- supautils' guard is C code that replica mode does not switch off: neither does this.
alter event trigger rlskit_platform_auth_ddl enable always;
alter event trigger rlskit_platform_auth_drop enable always;
