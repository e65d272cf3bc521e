-- rlskit stand-in for Supabase Vault: the same tables, view and functions. Secrets are stored
-- base64-encoded, not encrypted: the throwaway server holds no real secrets.

create table vault.secrets (
  id          uuid primary key default pg_catalog.gen_random_uuid(),
  name        text,
  description text not null default '',
  secret      text not null,
  key_id      uuid,
  nonce       bytea,
  created_at  timestamptz not null default pg_catalog.now(),
  updated_at  timestamptz not null default pg_catalog.now()
);
create unique index secrets_name_idx on vault.secrets (name) where name is not null;

create view vault.decrypted_secrets as
select s.id, s.name, s.description, s.secret,
       pg_catalog.convert_from(pg_catalog.decode(s.secret, 'base64'), 'utf8') as decrypted_secret,
       s.key_id, s.nonce, s.created_at, s.updated_at
from vault.secrets as s;

create function vault.create_secret(new_secret text, new_name text default null,
                                    new_description text default '', new_key_id uuid default null)
returns uuid language plpgsql security definer set search_path = '' as $$
declare
  made uuid;
begin
  insert into vault.secrets (secret, name, description, key_id)
  values (pg_catalog.encode(pg_catalog.convert_to(new_secret, 'utf8'), 'base64'), new_name,
          coalesce(new_description, ''), new_key_id)
  returning id into made;
  return made;
end
$$;

create function vault.update_secret(secret_id uuid, new_secret text default null, new_name text default null,
                                    new_description text default null, new_key_id uuid default null)
returns void language plpgsql security definer set search_path = '' as $$
begin
  update vault.secrets
     set secret = coalesce(pg_catalog.encode(pg_catalog.convert_to(new_secret, 'utf8'), 'base64'), secret),
         name = coalesce(new_name, name),
         description = coalesce(new_description, description),
         key_id = coalesce(new_key_id, key_id),
         updated_at = pg_catalog.now()
   where id = secret_id;
end
$$;

revoke all on vault.secrets, vault.decrypted_secrets from public;
revoke all on function vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid) from public;
