-- rlskit compat layer: Supabase keeps extensions out of public, in schema
-- "extensions", which the API roles may use. Idempotent.
-- gen_random_uuid() is core since PG13, so nothing below is required; the two
-- extensions are installed only when the server ships them.

create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;

do $$
declare
  ext text;
begin
  foreach ext in array array['pgcrypto', 'uuid-ossp'] loop
    if exists (select 1 from pg_catalog.pg_available_extensions where name = ext)
       and not exists (select 1 from pg_catalog.pg_extension where extname = ext) then
      execute format('create extension %I with schema extensions', ext);
    end if;
  end loop;
end
$$;
