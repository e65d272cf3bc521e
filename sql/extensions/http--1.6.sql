-- rlskit stand-in for pgsql-http: the same types and functions, but nothing is sent. Every
-- request is recorded in rlskit_http.requests and answered with status 200 and an empty
-- JSON body, so code that checks the status goes its success path.

create schema rlskit_http;
create table rlskit_http.requests (
  id           bigserial primary key,
  method       text not null,
  url          text not null,
  headers      jsonb not null default '[]',
  content_type text,
  content      text,
  created_at   timestamptz not null default pg_catalog.clock_timestamp()
);
revoke all on schema rlskit_http from public;
revoke all on rlskit_http.requests from public;

create domain http_method as text check (value ~* '^(get|post|put|delete|patch|head)$');
create domain content_type as text check (value ~ '^\S+\/\S+');
create type http_header as (field character varying, value character varying);
create type http_request as (method http_method, uri character varying, headers http_header[],
                             content_type character varying, content character varying);
create type http_response as (status integer, content_type character varying, headers http_header[],
                              content character varying);

create function http_header(field character varying, value character varying) returns http_header
language sql immutable as $$ select row(field, value)::@extschema@.http_header $$;

create function http(request http_request) returns http_response
language plpgsql volatile security definer set search_path = '' as $$
begin
  insert into rlskit_http.requests (method, url, headers, content_type, content)
  values (pg_catalog.upper(request.method), request.uri, coalesce(pg_catalog.to_jsonb(request.headers), '[]'),
          request.content_type, request.content);
  return row(200, 'application/json', array[]::@extschema@.http_header[], '{}')::@extschema@.http_response;
end
$$;

create function urlencode(string character varying) returns text language sql immutable strict as $$
  select pg_catalog.string_agg(
           case when c ~ '^[A-Za-z0-9_.~-]$' then c
                else (select pg_catalog.string_agg('%' || pg_catalog.upper(pg_catalog.lpad(pg_catalog.to_hex(b), 2, '0')), '')
                      from (select pg_catalog.get_byte(pg_catalog.convert_to(c, 'utf8'), i) as b
                            from pg_catalog.generate_series(0, pg_catalog.octet_length(c) - 1) as i) as bytes)
           end, '' order by n)
  from pg_catalog.regexp_split_to_table(string, '') with ordinality as t(c, n)
$$;
create function urlencode(data jsonb) returns text language sql immutable strict as $$
  select pg_catalog.string_agg(@extschema@.urlencode(key) || '=' || @extschema@.urlencode(value), '&' order by key)
  from pg_catalog.jsonb_each_text(data)
$$;

create function http_get(uri character varying) returns http_response language sql volatile as
  $$ select @extschema@.http(('GET', uri, null, null, null)::@extschema@.http_request) $$;
create function http_get(uri character varying, data jsonb) returns http_response language sql volatile as
  $$ select @extschema@.http(('GET', uri || '?' || @extschema@.urlencode(data), null, null, null)::@extschema@.http_request) $$;
create function http_post(uri character varying, content character varying, content_type character varying) returns http_response
  language sql volatile as $$ select @extschema@.http(('POST', uri, null, content_type, content)::@extschema@.http_request) $$;
create function http_post(uri character varying, data jsonb) returns http_response language sql volatile as
  $$ select @extschema@.http(('POST', uri, null, 'application/x-www-form-urlencoded', @extschema@.urlencode(data))::@extschema@.http_request) $$;
create function http_put(uri character varying, content character varying, content_type character varying) returns http_response
  language sql volatile as $$ select @extschema@.http(('PUT', uri, null, content_type, content)::@extschema@.http_request) $$;
create function http_patch(uri character varying, content character varying, content_type character varying) returns http_response
  language sql volatile as $$ select @extschema@.http(('PATCH', uri, null, content_type, content)::@extschema@.http_request) $$;
create function http_delete(uri character varying) returns http_response language sql volatile as
  $$ select @extschema@.http(('DELETE', uri, null, null, null)::@extschema@.http_request) $$;
create function http_delete(uri character varying, content character varying, content_type character varying) returns http_response
  language sql volatile as $$ select @extschema@.http(('DELETE', uri, null, content_type, content)::@extschema@.http_request) $$;
create function http_head(uri character varying) returns http_response language sql volatile as
  $$ select @extschema@.http(('HEAD', uri, null, null, null)::@extschema@.http_request) $$;
create function http_set_curlopt(curlopt character varying, value character varying) returns boolean
  language sql volatile as $$ select true $$;
create function http_reset_curlopt() returns boolean language sql volatile as $$ select true $$;
