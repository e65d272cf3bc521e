-- Delete a replaced or orphaned avatar (seed 000 "Storage management"), done
-- safely. Differences from the tutorial's version, and why:
--   * Objects are deleted THROUGH THE STORAGE API, never with DELETE on
--     storage.objects (that would orphan the bytes in the object store, and
--     Supabase refuses it anyway).
--   * The service key is never written into a function body (pg_proc.prosrc is
--     readable by every role). It lives in Vault, or in a table no API role can
--     read; private.storage_api_setting() hides which.
--   * Everything is in schema "private", SECURITY DEFINER with an empty
--     search_path, and EXECUTE is revoked from the API roles: in public with
--     EXECUTE to PUBLIC, the tutorial's delete_storage_object() lets anon delete
--     any object with the service key.
--   * Only objects inside the profile owner's folder are deleted, so a user who
--     points avatar_url at someone else's object cannot get it deleted. The
--     whole name is checked (private.storage_path_problem), not just its prefix:
--     '<uid>/../<victim>/a.png' would otherwise leave the folder, or the API.
--     Unsafe names are never queued and never sent, and profiles.avatar_url
--     cannot be set to one (private.check_avatar_url).
--   * Cleanup runs AFTER the row change (not BEFORE, as in the tutorial), so a
--     profile update that fails its own checks never deletes anything.
--   * A failed deletion is a WARNING, never an error: it must not block the
--     profile update or delete (the tutorial's rule).

-- Settings for when Supabase Vault is absent. A single row; only the owner (and
-- superusers) can read it. Insert it out of band, never in a migration:
--   insert into private.storage_api_settings (api_url, service_role_key)
--   values ('https://<ref>.supabase.co', '<service key>')
--   on conflict (id) do update set api_url = excluded.api_url,
--                                  service_role_key = excluded.service_role_key;
-- Note: the row is in plain text and in any data dump; prefer Vault where present.
create table private.storage_api_settings (
  id               boolean primary key default true check (id),
  api_url          text,
  service_role_key text
);
alter table private.storage_api_settings enable row level security;
revoke all on private.storage_api_settings from public, anon, authenticated, service_role;

-- Deletions that were requested but not (yet) confirmed: the whole story with no
-- HTTP extension, plus failures and missing settings with one. An external
-- worker drains it through the Storage API and sets sent_at.
create table private.storage_deletion_outbox (
  id           bigint generated always as identity primary key,
  bucket_id    text not null,
  object_name  text not null,
  requested_at timestamptz not null default now(),
  attempts     integer not null default 0,
  last_error   text,
  sent_at      timestamptz
);
create index storage_deletion_outbox_pending_idx
  on private.storage_deletion_outbox (requested_at) where sent_at is null;
alter table private.storage_deletion_outbox enable row level security;
revoke all on private.storage_deletion_outbox from public, anon, authenticated, service_role;

-- Names: 'rlskit_storage_api_url', 'rlskit_service_role_key' (the Vault secret
-- names). Vault is looked up at call time, so installing it later just works;
-- the settings table is the fallback. Blank values count as missing.
create function private.storage_api_setting(name text)
returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  result text;
begin
  if storage_api_setting.name not in ('rlskit_storage_api_url', 'rlskit_service_role_key') then
    raise exception 'unknown storage API setting: %', storage_api_setting.name
      using errcode = '22023';
  end if;

  if pg_catalog.to_regclass('vault.decrypted_secrets') is not null then
    select nullif(s.decrypted_secret, '') into result
    from vault.decrypted_secrets as s
    where s.name = storage_api_setting.name
    limit 1;
  end if;

  if result is null then
    select nullif(case storage_api_setting.name
                    when 'rlskit_storage_api_url' then t.api_url
                    else t.service_role_key
                  end, '')
      into result
    from private.storage_api_settings as t;
  end if;

  return result;
end;
$$;

-- Why a bucket id or object name must not go into a Storage API URL, or null
-- when it may. The one place for these rules in SQL (StoragePath.swift holds
-- the same ones for the drain; a test runs both over the same names). HTTP
-- clients and proxies resolve '.' and '..' segments, some decode '%2e' or
-- '%252e' first or map look-alikes such as U+FF0E to '.', and '\' is a
-- separator to some servers, so any of them could send the service key's
-- DELETE to another path (e.g. the Auth admin API). Empty segments are
-- refused too ('a//b' is not the name 'a/b').
create function private.storage_path_problem(bucket_id text, object_name text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  label text;
  part  text;
  form  text;
  forms text[];
begin
  foreach label in array array['bucket id', 'object name'] loop
    part := case label when 'bucket id' then bucket_id else object_name end;
    if coalesce(part, '') = '' then
      return label || ' is empty';
    end if;
    forms := array[part];
    -- ASCII is unchanged by NFKC, and normalize() needs a UTF8 database.
    if part ~ '[^\x01-\x7f]' then
      forms := forms || pg_catalog.normalize(part, 'NFKC');
    end if;
    foreach form in array forms loop
      if form ~ '[\x01-\x1f\x7f-\x9f]' then
        return label || ' contains a control character';
      elsif pg_catalog.strpos(form, E'\\') > 0 then
        return label || ' contains a backslash';
      elsif form ~* '%(2e|2f|5c|25|[01][0-9a-f]|7f|c2%[89][0-9a-f])' then
        return label || ' contains a percent-encoded dot, slash, backslash, percent sign or control character';
      elsif label = 'bucket id' and pg_catalog.strpos(form, '/') > 0 then
        return 'bucket id contains a slash';
      elsif pg_catalog.string_to_array(form, '/') && array['', '.', '..'] then
        return label || ' has an empty, "." or ".." segment';
      end if;
    end loop;
  end loop;
  return null;
end;
$$;

-- Percent-encodes every path segment of an object name for the Storage API URL
-- (keeps '/', encodes everything outside RFC 3986's unreserved set, as UTF-8).
-- Refuses (22023) what private.storage_path_problem refuses, so no caller can
-- build a URL that leaves /storage/v1/object/<bucket>/.
create function private.urlencode_object_path(object_name text)
returns text
language plpgsql
immutable
strict
set search_path = ''
as $$
declare
  problem text := private.storage_path_problem('bucket', object_name);
begin
  if problem is not null then
    raise exception 'refusing storage object name: %', problem using errcode = '22023';
  end if;
  return (
    select pg_catalog.string_agg(enc.segment, '/' order by seg.ord)
    from pg_catalog.unnest(pg_catalog.string_to_array(object_name, '/')) with ordinality as seg(part, ord)
    cross join lateral (
      select pg_catalog.string_agg(
               case
                 when b.byte between 48 and 57 or b.byte between 65 and 90
                   or b.byte between 97 and 122 or b.byte in (45, 46, 95, 126)
                 then pg_catalog.chr(b.byte)
                 else '%' || pg_catalog.upper(pg_catalog.lpad(pg_catalog.to_hex(b.byte), 2, '0'))
               end, '' order by b.i) as segment
      from (
        select i, pg_catalog.get_byte(pg_catalog.convert_to(seg.part, 'UTF8'), i) as byte
        from pg_catalog.generate_series(0, pg_catalog.octet_length(pg_catalog.convert_to(seg.part, 'UTF8')) - 1) as i
      ) as b
    ) as enc);
end;
$$;

-- The only URL the deletion backends send to: <api>/storage/v1/object/<bucket>/<name>.
create function private.storage_object_url(api_url text, bucket_id text, object_name text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  problem text := private.storage_path_problem(bucket_id, object_name);
begin
  if api_url ~ '[?#[:space:]\x01-\x1f\x7f]' then
    raise exception 'the storage API URL must have no query, fragment, spaces or control characters'
      using errcode = '22023';
  end if;
  if problem is not null then
    raise exception 'refusing storage object "%/%": %',
      pg_catalog.left(pg_catalog.regexp_replace(bucket_id, '[\x01-\x1f\x7f-\x9f]', '?', 'g'), 100),
      pg_catalog.left(pg_catalog.regexp_replace(object_name, '[\x01-\x1f\x7f-\x9f]', '?', 'g'), 200), problem
      using errcode = '22023';
  end if;
  return pg_catalog.rtrim(api_url, '/') || '/storage/v1/object/'
         || private.urlencode_object_path(bucket_id) || '/'
         || private.urlencode_object_path(object_name);
end;
$$;

-- (Re)creates private.request_storage_deletion(bucket_id, object_name) for the
-- HTTP client this database has, detected by function signature (not by
-- pg_extension, so stand-ins with the same signatures work too):
--   'http'   extensions.http(extensions.http_request): synchronous DELETE; a
--            non-2xx status or an error is a WARNING and goes to the outbox.
--   'pg_net' net.http_delete(...): queued, sent after commit; errors there are
--            pg_net's (see net._http_response).
--   'outbox' neither: every request is recorded in private.storage_deletion_outbox.
-- With http or pg_net but no URL/key configured, the request is recorded in the
-- outbox with a WARNING rather than lost, so configuring later and draining the
-- outbox recovers it.
-- Run it again (as the owner) after installing pg_net or http. SECURITY INVOKER:
-- it only works for a role that may replace functions in "private" anyway.
create function private.configure_storage_deletion_backend()
returns text
language plpgsql
set search_path = ''
as $configure$
declare
  backend text;
  http_fn regprocedure;
  send    text;   -- statements that send url/key; empty for the outbox backend
  body    text;
begin
  -- On PG15 to_regprocedure() raises (instead of returning NULL) when an argument
  -- type does not exist, so look for the type first.
  if pg_catalog.to_regtype('extensions.http_request') is not null then
    http_fn := pg_catalog.to_regprocedure('extensions.http(extensions.http_request)');
  end if;

  if http_fn is not null then
    backend := 'http';
    send := $send$
    begin
      -- The extension waits forever by default: a silent API would hang the
      -- profile update. A timeout the caller chose is kept.
      if coalesce(pg_catalog.current_setting('http.timeout_msec', true), '') in ('', '0') then
        perform pg_catalog.set_config('http.timeout_msec', '5000', true);
      end if;
      response := extensions.http(row(
        'DELETE',
        url,
        array[row('authorization', 'Bearer ' || api_key)::extensions.http_header],
        null,
        null
      )::extensions.http_request);
      if response.status between 200 and 299 then
        return;
      end if;
      failure := pg_catalog.format('HTTP %s: %s', response.status, pg_catalog.left(response.content, 500));
    exception when others then
      failure := pg_catalog.format('%s (SQLSTATE %s)', sqlerrm, sqlstate);
    end;
    raise warning 'could not delete storage object %/%: %', bucket_id, object_name, failure;
    insert into private.storage_deletion_outbox (bucket_id, object_name, attempts, last_error)
    values (bucket_id, object_name, 1, failure);
$send$;
  elsif pg_catalog.to_regprocedure('net.http_delete(text,jsonb,jsonb,integer,jsonb)') is not null then
    -- newer pg_net, which added a request body parameter. Checked first and
    -- called with all five arguments: were both versions present, a four-argument
    -- call would be ambiguous.
    backend := 'pg_net';
    send := $send$
    begin
      perform net.http_delete(
        url,
        '{}'::jsonb,
        pg_catalog.jsonb_build_object('Authorization', 'Bearer ' || api_key),
        5000,
        null::jsonb
      );
    exception when others then
      failure := pg_catalog.format('%s (SQLSTATE %s)', sqlerrm, sqlstate);
      raise warning 'could not queue deletion of storage object %/%: %', bucket_id, object_name, failure;
      insert into private.storage_deletion_outbox (bucket_id, object_name, attempts, last_error)
      values (bucket_id, object_name, 1, failure);
    end;
$send$;
  elsif pg_catalog.to_regprocedure('net.http_delete(text,jsonb,jsonb,integer)') is not null then
    backend := 'pg_net';
    send := $send$
    begin
      perform net.http_delete(
        url,
        '{}'::jsonb,
        pg_catalog.jsonb_build_object('Authorization', 'Bearer ' || api_key),
        5000
      );
    exception when others then
      failure := pg_catalog.format('%s (SQLSTATE %s)', sqlerrm, sqlstate);
      raise warning 'could not queue deletion of storage object %/%: %', bucket_id, object_name, failure;
      insert into private.storage_deletion_outbox (bucket_id, object_name, attempts, last_error)
      values (bucket_id, object_name, 1, failure);
    end;
$send$;
  else
    backend := 'outbox';
  end if;

  if backend = 'outbox' then
    body := $body$
begin
  perform private.storage_object_url('', bucket_id, object_name);  -- refuses unsafe names
  insert into private.storage_deletion_outbox (bucket_id, object_name)
  values (bucket_id, object_name);
end;
$body$;
  else
    body := $body$
declare
  api_url  text := private.storage_api_setting('rlskit_storage_api_url');
  api_key  text := private.storage_api_setting('rlskit_service_role_key');
  -- Refuses unsafe names before anything is queued or sent.
  url      text := private.storage_object_url('', bucket_id, object_name);
  failure  text;
$body$
      || case when backend = 'http' then E'  response extensions.http_response;\n' else '' end
      || $body$
begin
  if api_url is null or api_key is null then
    failure := 'storage API URL or key not configured';
  else
    begin
      url := private.storage_object_url(api_url, bucket_id, object_name);
    exception when sqlstate '22023' then
      failure := sqlerrm;  -- the name passed above, so it is the stored URL
    end;
  end if;
  if failure is not null then
    raise warning '%; deletion of %/% queued in private.storage_deletion_outbox',
      failure, bucket_id, object_name;
    insert into private.storage_deletion_outbox (bucket_id, object_name, last_error)
    values (bucket_id, object_name, failure);
    return;
  end if;
$body$
      || send
      || E'end;\n';
  end if;

  execute pg_catalog.format($ddl$
create or replace function private.request_storage_deletion(bucket_id text, object_name text)
returns void
language plpgsql
security definer
set search_path = ''
as %L
$ddl$, body);

  execute pg_catalog.format(
    'comment on function private.request_storage_deletion(text, text) is %L',
    'Asks the Storage API to delete an object. Backend: ' || backend
      || ' (chosen by private.configure_storage_deletion_backend()).');

  revoke all on function private.request_storage_deletion(text, text)
    from public, anon, authenticated, service_role;

  return backend;
end;
$configure$;

do $$
begin
  raise notice 'storage deletion backend: %', private.configure_storage_deletion_backend();
end
$$;

-- The trigger: only a non-empty avatar_url that changed or went away, only when
-- it names an object (not an external URL such as an OAuth avatar), only when
-- the whole name is safe, and only inside the profile owner's own folder (its
-- first segment; with no '.' or '..' segments that is the whole path's folder).
create function private.delete_old_avatar()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  old_name text := old.avatar_url;
  problem  text;
begin
  if coalesce(old_name, '') <> ''
     and (tg_op = 'DELETE' or old_name <> coalesce(new.avatar_url, '')) then
    if old_name ~* '^[a-z][a-z0-9+.-]*:' then
      return null;  -- an external URL: nothing of ours to delete
    end if;
    begin
      problem := private.storage_path_problem('avatars', old_name);
    exception when others then
      problem := pg_catalog.format('cannot be checked: %s (SQLSTATE %s)', sqlerrm, sqlstate);
    end;
    if problem is not null then
      raise warning 'not deleting avatar "%" of profile %: %',
        pg_catalog.left(pg_catalog.regexp_replace(old_name, '[\x01-\x1f\x7f-\x9f]', '?', 'g'), 200), old.id, problem;
    elsif pg_catalog.split_part(old_name, '/', 1) <> old.id::text or pg_catalog.strpos(old_name, '/') = 0 then
      raise warning 'not deleting avatar "%" of profile %: it is outside the user''s folder',
        pg_catalog.left(old_name, 200), old.id;
    else
      begin
        perform private.request_storage_deletion('avatars', old_name);
      exception when others then
        raise warning 'could not request deletion of avatar "%": % (SQLSTATE %)',
          old_name, sqlerrm, sqlstate;
      end;
    end if;
  end if;
  return null;  -- AFTER trigger: the return value is ignored
end;
$$;

-- What profiles.avatar_url may hold: nothing, an http(s) URL (an OAuth avatar),
-- or an object name in bucket avatars that private.storage_path_problem accepts.
-- Anything else (a traversal, a javascript: URL) is refused when written, so the
-- cleanup above never meets it. At sign-up nothing may fail: a bad value from the
-- user's metadata (written by private.handle_new_user, so one trigger level down)
-- becomes NULL with a WARNING instead. Values already stored are left alone.
create function private.check_avatar_url()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  value   text := new.avatar_url;
  problem text;
begin
  if coalesce(value, '') = '' or (tg_op = 'UPDATE' and value is not distinct from old.avatar_url) then
    return new;
  end if;
  if value ~* '^[a-z][a-z0-9+.-]*:' then
    if value !~* '^https?://[^/?#@\s]' or value ~ '[\x01-\x20\x7f-\x9f]' then
      problem := 'a URL must be http(s) with a host, and no spaces or control characters';
    end if;
  else
    problem := private.storage_path_problem('avatars', value);
  end if;
  if problem is null then
    return new;
  end if;
  if tg_op = 'INSERT' and pg_catalog.pg_trigger_depth() > 1 then
    raise warning 'avatar_url of new profile % dropped: %', new.id, problem;
    new.avatar_url := null;
    return new;
  end if;
  raise exception 'avatar_url is not allowed: %', problem
    using errcode = '23514',
          hint = 'use an object name in bucket avatars such as ''<user id>/avatar.png'', or an https:// URL';
end;
$$;

create trigger check_avatar_url
  before insert or update of avatar_url on public.profiles
  for each row execute function private.check_avatar_url();

revoke all on function private.storage_api_setting(text) from public, anon, authenticated, service_role;
revoke all on function private.storage_path_problem(text, text) from public, anon, authenticated, service_role;
revoke all on function private.urlencode_object_path(text) from public, anon, authenticated, service_role;
revoke all on function private.storage_object_url(text, text, text) from public, anon, authenticated, service_role;
revoke all on function private.configure_storage_deletion_backend() from public, anon, authenticated, service_role;
revoke all on function private.delete_old_avatar() from public, anon, authenticated, service_role;
revoke all on function private.check_avatar_url() from public, anon, authenticated, service_role;

create trigger on_profile_avatar_replaced
  after update of avatar_url or delete on public.profiles
  for each row execute function private.delete_old_avatar();
