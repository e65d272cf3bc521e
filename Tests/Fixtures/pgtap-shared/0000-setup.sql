-- No transaction: what this file creates is there for the files after it.
create schema fixtures;
grant usage on schema fixtures to authenticated, anon;
create function fixtures.note_count() returns int language sql security definer
  set search_path = '' as $$ select count(*)::int from public.notes $$;
grant execute on function fixtures.note_count() to authenticated, anon;
select tests.create_supabase_user('owner');
select plan(1);
select has_function('fixtures', 'note_count', 'the setup file created its helper');
select * from finish();
