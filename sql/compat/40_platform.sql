-- rlskit compat layer: what every Supabase project has besides auth and storage, so a
-- project's migrations and `supabase db pull` dumps apply unchanged. Idempotent.
--   * schemas the platform manages (dumps leave them out): graphql, graphql_public, vault,
--     pgsodium; and the extensions it pre-installs, where this server offers them (the real
--     one, or rlskit's stand-in on the throwaway server);
--   * the supabase_realtime publication, realtime.messages and realtime.topic() (Realtime
--     Authorization policies are written on them), realtime.send();
--   * supabase_functions.http_request(), the trigger behind database webhooks (through pg_net).

create schema if not exists graphql;
create schema if not exists graphql_public;
create schema if not exists vault;
create schema if not exists pgsodium;
grant usage on schema graphql, graphql_public to anon, authenticated, service_role;

do $$
declare
  ext text;
  preload text := coalesce(current_setting('shared_preload_libraries', true), '');
  -- One look at the extension files (each look reads them all).
  offered text[] := array(select name from pg_catalog.pg_available_extensions
                          where name in ('pg_graphql', 'supabase_vault', 'pg_stat_statements'));
begin
  foreach ext in array array['pg_graphql', 'supabase_vault', 'pg_stat_statements'] loop
    -- pg_stat_statements is only usable when preloaded, as the platform does.
    if ext = 'pg_stat_statements' and preload not like '%pg_stat_statements%' then continue; end if;
    if ext = any (offered) and not exists (select 1 from pg_catalog.pg_extension where extname = ext) then
      execute format('create extension %I', ext) || case when ext = 'pg_stat_statements' then ' with schema extensions' else '' end;
    end if;
  end loop;
end
$$;

create or replace function graphql_public.graphql("operationName" text default null, query text default null,
                                                  variables jsonb default null, extensions jsonb default null)
returns jsonb language plpgsql as $$
begin
  if pg_catalog.to_regproc('graphql.resolve') is null then
    return '{"errors": [{"message": "pg_graphql is not installed"}]}'::jsonb;
  end if;
  return graphql.resolve(query => query, variables => coalesce(variables, '{}'),
                         "operationName" => "operationName", extensions => extensions);
end
$$;

-- Realtime: Broadcast and Presence authorization reads realtime.messages as the caller,
-- with the channel's topic in realtime.topic().
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;
create table if not exists realtime.messages (
  topic       text not null,
  extension   text not null,
  payload     jsonb,
  event       text,
  private     boolean default false,
  updated_at  timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  id          uuid not null default gen_random_uuid(),
  primary key (id, inserted_at)
);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated;
grant all on realtime.messages to service_role;

create or replace function realtime.topic() returns text
language sql stable as $$ select nullif(current_setting('realtime.topic', true), '')::text $$;

-- As on the platform, send and broadcast_changes are SECURITY INVOKER: a message is an INSERT into
-- realtime.messages as the caller, under its policies. send sets realtime.topic for them and, as
-- Realtime's, turns a failure (a policy refusing the row) into a warning, not an error.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void language plpgsql security invoker as $$
declare
  generated_id uuid;
begin
  begin
    generated_id := pg_catalog.gen_random_uuid();
    perform pg_catalog.set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id,
            case when payload ? 'id' then payload
                 else pg_catalog.jsonb_set(payload, '{id}', pg_catalog.to_jsonb(generated_id)) end,
            event, topic, private, 'broadcast');
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

create or replace function realtime.broadcast_changes(topic_name text, event_name text, operation text,
                                                      table_name text, table_schema text, new record, old record,
                                                      level text default 'ROW')
returns void language plpgsql security invoker as $$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation in ('INSERT', 'UPDATE', 'DELETE') then
    perform realtime.send(pg_catalog.jsonb_build_object(
              'old_record', old, 'record', new, 'operation', operation,
              'table', table_name, 'schema', table_schema),
            event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception when others then
  raise exception 'Failed to process the row: %', sqlerrm;
end
$$;

do $$
begin
  if not exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Database webhooks: triggers call supabase_functions.http_request(url, method, headers,
-- params, timeout_ms), which queues the request through pg_net (looked up when it runs, so
-- installing pg_net later just works; on the throwaway server pg_net records, never sends,
-- and is created by the first webhook that fires when no migration created it).
create schema if not exists supabase_functions;
grant usage on schema supabase_functions to anon, authenticated, service_role;
create table if not exists supabase_functions.hooks (
  id            bigserial primary key,
  hook_table_id integer not null,
  hook_name     text not null,
  created_at    timestamptz not null default now(),
  request_id    bigint
);
revoke all on supabase_functions.hooks from public, anon, authenticated;

create or replace function supabase_functions.http_request() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  url        text := tg_argv[0];
  method     text := tg_argv[1];
  headers    jsonb := coalesce(nullif(tg_argv[2], 'null')::jsonb, '{}');
  params     jsonb := coalesce(nullif(tg_argv[3], 'null')::jsonb, '{}');
  timeout_ms integer := coalesce(nullif(tg_argv[4], 'null')::integer, 1000);
  payload    jsonb;
  request_id bigint;
begin
  if url is null or url = 'null' then raise exception 'url argument is missing'; end if;
  if method is null or method = 'null' then raise exception 'method argument is missing'; end if;
  -- The platform has pg_net installed for webhooks; here only rlskit's recording stand-in is
  -- created for them (never a real pg_net, which would send).
  if pg_catalog.to_regnamespace('net') is null then
    if exists (select from pg_catalog.pg_available_extensions
                where name = 'pg_net' and comment like 'rlskit stand-in:%') then
      create extension pg_net with schema extensions;
    else
      raise exception 'database webhooks need pg_net: add "create extension if not exists pg_net with schema extensions" to a migration'
        using errcode = '0A000';
    end if;
  end if;
  payload := pg_catalog.jsonb_build_object(
    'old_record', case when tg_op in ('UPDATE', 'DELETE') then pg_catalog.to_jsonb(old) end,
    'record', case when tg_op in ('INSERT', 'UPDATE') then pg_catalog.to_jsonb(new) end,
    'type', tg_op, 'table', tg_table_name, 'schema', tg_table_schema);
  if method = 'GET' then
    execute 'select net.http_get($1, $2, $3, $4)' into request_id using url, params, headers, timeout_ms;
  elsif method = 'POST' then
    execute 'select net.http_post($1, $2, $3, $4, $5)' into request_id using url, payload, params, headers, timeout_ms;
  else
    raise exception 'method argument % is invalid', method;
  end if;
  insert into supabase_functions.hooks (hook_table_id, hook_name, request_id) values (tg_relid, tg_name, request_id);
  return coalesce(new, old);
end
$$;
