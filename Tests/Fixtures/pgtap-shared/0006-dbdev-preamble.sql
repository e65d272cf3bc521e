-- The dbdev install preamble, as many suites start.
-- dbdev preamble: begin
create extension if not exists http with schema extensions;
create extension if not exists pg_tle;
drop extension if exists "supabase-dbdev";
select pgtle.uninstall_extension_if_exists('supabase-dbdev');
select pgtle.install_extension('supabase-dbdev', resp.contents ->> 'version', 'PostgreSQL package manager',
                               resp.contents ->> 'sql')
  from http(('GET', 'https://api.database.dev/rest/v1/package_versions?select=sql,version&package_name=eq.supabase-dbdev',
             array[('apiKey', 'key')::http_header], null, null)) x,
       lateral (select ((row_to_json(x) -> 'content') #>> '{}')::json -> 0) resp(contents);
create extension "supabase-dbdev";
select dbdev.install('supabase-dbdev');
select dbdev.install('basejump-supabase_test_helpers');
create extension if not exists "basejump-supabase_test_helpers" version '0.0.6';
-- dbdev preamble: end
begin;
select plan(1);
select ok(tests.get_supabase_uid('owner') is not null, 'the helpers work after the preamble');
select * from finish();
rollback;
