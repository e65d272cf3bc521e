-- rlskit stand-in for pg_net: the same functions and tables, but nothing is ever sent.
-- Every request stays in net.http_request_queue (pg_net's worker would take it from there),
-- so tests can read what would have been requested. No response ever arrives.

create schema net;

create table net.http_request_queue (
  id                   bigserial primary key,
  method               text not null,
  url                  text not null,
  headers              jsonb not null,
  body                 bytea,
  timeout_milliseconds integer not null
);

create table net._http_response (
  id           bigint,
  status_code  integer,
  content_type text,
  headers      jsonb,
  content      text,
  timed_out    boolean,
  error_msg    text,
  created      timestamptz not null default pg_catalog.now()
);

-- Query parameters are appended as pg_net does, each key and value percent-encoded.
create function net._encode_url_with_params(url text, params jsonb) returns text
language sql immutable as $$
  select case when params is null or params = '{}'::jsonb then url
         else url || case when pg_catalog.strpos(url, '?') > 0 then '&' else '?' end || (
           select pg_catalog.string_agg(net._urlencode(key) || '=' || net._urlencode(value), '&' order by key)
           from pg_catalog.jsonb_each_text(params))
         end
$$;

create function net._urlencode(s text) returns text
language sql immutable strict as $$
  select pg_catalog.string_agg(
           case when c ~ '^[A-Za-z0-9_.~-]$' then c
                else (select pg_catalog.string_agg('%' || pg_catalog.upper(pg_catalog.lpad(pg_catalog.to_hex(b), 2, '0')), '')
                      from (select pg_catalog.get_byte(pg_catalog.convert_to(c, 'utf8'), i) as b
                            from pg_catalog.generate_series(0, pg_catalog.octet_length(c) - 1) as i) as bytes)
           end, '' order by n)
  from pg_catalog.regexp_split_to_table(s, '') with ordinality as t(c, n)
$$;

create function net._record(method text, url text, params jsonb, headers jsonb, body bytea, timeout_milliseconds integer)
returns bigint language sql volatile security definer set search_path = '' as $$
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values (method, net._encode_url_with_params(url, params), coalesce(headers, '{}'::jsonb), body, timeout_milliseconds)
  returning id
$$;

create function net.http_get(url text, params jsonb default '{}', headers jsonb default '{}',
                             timeout_milliseconds integer default 5000)
returns bigint language sql volatile security definer set search_path = '' as $$
  select net._record('GET', url, params, headers, null, timeout_milliseconds)
$$;

create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
                              headers jsonb default '{"Content-Type": "application/json"}',
                              timeout_milliseconds integer default 5000)
returns bigint language sql volatile security definer set search_path = '' as $$
  select net._record('POST', url, params, headers, pg_catalog.convert_to(body::text, 'utf8'), timeout_milliseconds)
$$;

create function net.http_delete(url text, params jsonb default '{}', headers jsonb default '{}',
                                timeout_milliseconds integer default 5000, body jsonb default null)
returns bigint language sql volatile security definer set search_path = '' as $$
  select net._record('DELETE', url, params, headers, pg_catalog.convert_to(body::text, 'utf8'), timeout_milliseconds)
$$;

create function net._await_response(request_id bigint) returns boolean
language plpgsql volatile as $$
begin
  raise exception 'rlskit stand-in: pg_net requests are recorded, never sent; there is no response to wait for'
    using errcode = '0A000';
end
$$;

revoke all on all tables in schema net from public;
revoke all on all functions in schema net from public;
do $$
declare
  r text;
begin
  -- As on the platform: the API roles may queue requests (through these functions only).
  foreach r in array array['anon', 'authenticated', 'service_role'] loop
    if exists (select 1 from pg_catalog.pg_roles where rolname = r) then
      execute pg_catalog.format('grant usage on schema net to %I', r);
      execute pg_catalog.format('grant execute on function net.http_get(text, jsonb, jsonb, integer), '
        || 'net.http_post(text, jsonb, jsonb, jsonb, integer), net.http_delete(text, jsonb, jsonb, integer, jsonb) to %I', r);
    end if;
  end loop;
end
$$;
