begin;
select plan(2);
select tests.create_supabase_user('alice', 'alice@example.test');
select is((select email from auth.users where id = tests.get_supabase_uid('alice')), 'alice@example.test',
  'the suite''s own create_supabase_user and get_supabase_uid are the ones called');
select is((select raw_user_meta_data from auth.users where email = 'alice@example.test'),
  '{"own_copy": "alice"}'::jsonb, 'with the copy''s own metadata');
select * from finish();
rollback;
