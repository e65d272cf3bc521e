-- rlskit stand-in for pgsodium: random bytes and key generation only (over pgcrypto).
-- Encryption functions and transparent column encryption are not stood in.

do $do$
declare
  crypto text := (select n.nspname from pg_catalog.pg_extension e
                  join pg_catalog.pg_namespace n on n.oid = e.extnamespace where e.extname = 'pgcrypto');
  f record;
begin
  for f in select * from (values ('randombytes_buf(size integer)', 'size'), ('crypto_secretbox_keygen()', '32'),
                                 ('crypto_aead_det_keygen()', '32'), ('crypto_auth_keygen()', '32'),
                                 ('crypto_box_new_seed()', '32')) as t(sig, n) loop
    execute pg_catalog.format('create function pgsodium.%s returns bytea language sql volatile as $b$ select %I.gen_random_bytes(%s) $b$',
                              f.sig, crypto, f.n);
  end loop;
end
$do$;

create function pgsodium.randombytes_random() returns integer
language sql volatile as $$ select (pg_catalog.random() * 2147483647)::integer $$;

-- The key table, its sequence and views, with pgsodium's columns: a `db dump --data-only` seed of
-- a PG 15 project sets the sequence and may insert keys. Keys are stored, never derived.
create type pgsodium.key_status as enum ('default', 'valid', 'invalid', 'expired');
create type pgsodium.key_type as enum ('aead-ietf', 'aead-det', 'hmacsha512', 'hmacsha256', 'auth', 'shorthash',
  'generichash', 'kdf', 'secretbox', 'secretstream', 'stream_xchacha20');
create sequence pgsodium.key_key_id_seq;
create table pgsodium.key (
  id uuid not null default pg_catalog.gen_random_uuid() primary key,
  status pgsodium.key_status default 'valid',
  created timestamptz not null default pg_catalog.now(),
  expires timestamptz,
  key_type pgsodium.key_type,
  key_id bigint default pg_catalog.nextval('pgsodium.key_key_id_seq'::pg_catalog.regclass),
  key_context bytea default '\x7067736f6469756d'::bytea,
  name text unique,
  associated_data text default 'associated',
  raw_key bytea,
  raw_key_nonce bytea,
  parent_key uuid references pgsodium.key (id),
  comment text,
  user_data text,
  constraint pgsodium_raw check (case when raw_key is not null
    then key_id is null and key_context is null and parent_key is not null
    else key_id is not null and key_context is not null and parent_key is null end)
);
alter sequence pgsodium.key_key_id_seq owned by pgsodium.key.key_id;

create view pgsodium.valid_key as
  select id, name, status, key_type, key_id, key_context, created, expires, associated_data
    from pgsodium.key
   where status in ('valid', 'default') and case when expires is null then true else expires > pg_catalog.now() end;

-- The stand-in does not encrypt: decrypted_raw_key is raw_key as stored.
create view pgsodium.decrypted_key as
  select id, status, created, expires, key_type, key_id, key_context, name, associated_data, raw_key,
         raw_key as decrypted_raw_key, raw_key_nonce, parent_key, comment
    from pgsodium.key;
