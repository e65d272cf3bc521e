-- rlskit stand-in for Supabase Wrappers (the FDWs of the 0.4 releases). Each wrapper's handler
-- and validator exist, so `create foreign data wrapper … handler … validator …`, servers, user
-- mappings and foreign tables apply. A handler is an internal function the server module
-- recognises: a query on a foreign table fails with one line saying it is never queried here.
-- Validators accept any options (the real ones check each wrapper's own).

create table wrappers_fdw_stats (
  fdw_name text not null primary key,
  create_times bigint,
  rows_in bigint,
  rows_out bigint,
  bytes_in bigint,
  bytes_out bigint,
  metadata jsonb,
  created_at timestamptz not null default pg_catalog.timezone('utc'::text, pg_catalog.now()),
  updated_at timestamptz not null default pg_catalog.timezone('utc'::text, pg_catalog.now())
);
revoke all on wrappers_fdw_stats from public;

create function airtable_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function airtable_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function airtable_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'airtable'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function auth0_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function auth0_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function auth0_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'auth0'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function big_query_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function big_query_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function big_query_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'big_query'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function click_house_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function click_house_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function click_house_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'click_house'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function cognito_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function cognito_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function cognito_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'cognito'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function firebase_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function firebase_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function firebase_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'firebase'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function hello_world_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function hello_world_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function hello_world_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'hello_world'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function logflare_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function logflare_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function logflare_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'logflare'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function mssql_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function mssql_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function mssql_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'mssql'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function redis_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function redis_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function redis_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'redis'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function s3_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function s3_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function s3_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 's3'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function stripe_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function stripe_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function stripe_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'stripe'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;

create function wasm_fdw_handler() returns fdw_handler language internal strict as 'fdw_handler_in';
create function wasm_fdw_validator(options text[], catalog oid) returns void language plpgsql as $$ begin end $$;
create function wasm_fdw_meta() returns table (name text, version text, author text, website text)
language sql immutable as $$ select 'wasm'::text, '0.4.3'::text, 'rlskit stand-in'::text, ''::text $$;
