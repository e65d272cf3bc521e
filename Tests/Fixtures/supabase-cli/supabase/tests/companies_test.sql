begin;
select plan(5);
select is((select count(*)::int from public.companies), 2, 'the seed rows are there');
select is((select file_size_limit from storage.buckets where id = 'avatars' and public), 5242880::bigint,
  'config.toml''s bucket exists with its limit');
select is((select email from auth.identities where provider = 'email'), 'owner@acme.test',
  'the seed''s identity is there, its email generated');
set local role authenticated;
select set_config('request.jwt.claims',
  '{"sub": "00000000-0000-4000-8000-0000000000a1", "role": "authenticated"}', true);
select is((select name from public.companies), 'Acme', 'an owner reads only their company');
select is((select count(*)::int from pg_publication_tables where pubname = 'supabase_realtime'), 1,
  'companies is published for realtime');
select * from finish();
rollback;
