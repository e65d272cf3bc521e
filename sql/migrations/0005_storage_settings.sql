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
--
-- This file: where the Storage API URL and key are kept, and the outbox of
-- deletions not (yet) sent. 0006 checks object names, 0007 sends deletions,
-- 0008 is the avatar trigger.

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

revoke all on function private.storage_api_setting(text) from public, anon, authenticated, service_role;
