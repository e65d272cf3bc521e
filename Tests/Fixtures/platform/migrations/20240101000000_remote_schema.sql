-- The extension block a `supabase db pull` dump starts with: everything the platform
-- pre-installs, re-created with "if not exists", plus what this project enabled.
create extension if not exists "pg_net" with schema "extensions";
create extension if not exists "pgsodium" with schema "pgsodium";
create extension if not exists "pg_cron" with schema "pg_catalog";
create extension if not exists "pg_graphql" with schema "graphql";
create extension if not exists "pg_stat_statements" with schema "extensions";
create extension if not exists "pgcrypto" with schema "extensions";
create extension if not exists "pgjwt" with schema "extensions";
create extension if not exists "supabase_vault" with schema "vault";
create extension if not exists "uuid-ossp" with schema "extensions";
create extension if not exists "vector" with schema "extensions";
create extension if not exists "http" with schema "extensions";
create extension if not exists "pg_jsonschema" with schema "extensions";
create extension if not exists "pg_trgm" with schema "extensions";
create extension if not exists "citext" with schema "extensions";
create extension if not exists "plpgsql" with schema "pg_catalog";
create schema if not exists "pgmq";
create extension if not exists "pgmq" with schema "pgmq";

-- Unqualified, as projects write them: resolved through the platform's search path.
create table public.api_keys (
  id         uuid primary key default uuid_generate_v4(),
  owner_id   uuid not null references auth.users (id) on delete cascade,
  prefix     text not null default encode(gen_random_bytes(6), 'hex'),
  hash       text not null,
  digest_hex text not null default encode(digest('seed', 'sha256'), 'hex')
);
alter table public.api_keys enable row level security;
grant select on public.api_keys to authenticated;
create policy "owners read their keys" on public.api_keys for select to authenticated
  using ((select auth.uid()) = owner_id);

create function private_check_key(plain text, stored text) returns boolean
language sql stable set search_path = public, extensions as $$ select crypt(plain, stored) = stored $$;
revoke execute on function private_check_key(text, text) from public, anon, authenticated;
select crypt('x', gen_salt('bf', 4)) is not null;
