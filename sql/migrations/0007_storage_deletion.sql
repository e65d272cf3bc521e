-- Sending a deletion to the Storage API with the HTTP client this database has
-- (the storage cleanup, part 3 of 4; see 0005_storage_settings.sql).

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

revoke all on function private.configure_storage_deletion_backend() from public, anon, authenticated, service_role;
