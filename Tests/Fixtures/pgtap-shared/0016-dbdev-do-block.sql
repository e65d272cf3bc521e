-- The dbdev install inside an anonymous block that tolerates a missing network.
-- dbdev preamble: begin
do $$
begin
  create extension if not exists http with schema extensions;
  create extension if not exists pg_tle;
  begin
    perform pgtle.install_extension('supabase-dbdev', r.v, 'package manager', r.s)
      from (select c ->> 'version' as v, c ->> 'sql' as s
              from http(('GET', 'https://api.database.dev/rest/v1/package_versions', array[('apiKey', 'k')::http_header], null, null)) h,
                   lateral (select ((row_to_json(h) -> 'content') #>> '{}')::json -> 0) j(c)) r;
    create extension "supabase-dbdev";
  exception when others then
    null;
  end;
  perform dbdev.install('basejump-supabase_test_helpers');
  create extension if not exists "basejump-supabase_test_helpers" version '0.0.6';
end
$$;
-- dbdev preamble: end
begin;
select plan(1);
select ok(tests.get_supabase_uid('owner') is not null, 'the helpers work after the install in a do block');
select * from finish();
rollback;
