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
