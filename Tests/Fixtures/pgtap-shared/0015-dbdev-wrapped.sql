-- The dbdev install wrapped in a function of the suite's own, then called.
-- dbdev preamble: begin
create extension if not exists http with schema extensions;
create extension if not exists pg_tle;
create or replace function public.fetch_test_helpers() returns void as $$
begin
  if not exists (select 1 from pg_catalog.pg_extension where extname = 'supabase-dbdev') then
    perform pgtle.install_extension('supabase-dbdev', r.v, 'package manager', r.s)
      from (select c ->> 'version' as v, c ->> 'sql' as s
              from http(('GET', 'https://api.database.dev/rest/v1/package_versions', array[('apiKey', 'k')::http_header], null, null)) h,
                   lateral (select ((row_to_json(h) -> 'content') #>> '{}')::json -> 0) j(c)) r;
  end if;
  create extension if not exists "supabase-dbdev";
  perform dbdev.install('basejump-supabase_test_helpers');
end
$$ language plpgsql;
select public.fetch_test_helpers();
drop function public.fetch_test_helpers();
-- dbdev preamble: end
begin;
select plan(1);
select ok(tests.get_supabase_uid('owner') is not null, 'the helpers work after the wrapped install');
select * from finish();
rollback;
