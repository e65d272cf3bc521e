-- Observable behaviour of basejump's supabase-test-helpers 0.0.6.
begin;
select plan(12);
select tests.create_supabase_user('plain');
select tests.create_supabase_user('meta', 'Meta@Example.com', '+15550002', '{"tier": "gold"}');
select is(tests.get_supabase_user('plain') ->> 'email', tests.get_supabase_uid('plain') || '@test.com', 'default email');
select is((tests.get_supabase_user('meta') -> 'raw_user_meta_data')::jsonb, '{"test_identifier": "meta", "tier": "gold"}', 'metadata merged');
select is((tests.get_supabase_user('meta') -> 'raw_app_meta_data')::jsonb, '{}', 'app metadata empty');
select is(tests.get_supabase_user('meta') ->> 'email', 'Meta@Example.com', 'email as given');
select is((select by_role from public.signup_log where id = tests.get_supabase_uid('plain')), current_user::text, 'inserted as the calling role');
select tests.authenticate_as('meta');
select is(current_user::text, 'authenticated', 'role authenticated');
select is((select array_agg(k order by k) from jsonb_object_keys(current_setting('request.jwt.claims')::jsonb) k),
          array['app_metadata', 'email', 'phone', 'sub', 'user_metadata'], 'claims keys, no role');
select is(auth.uid(), tests.get_supabase_uid('meta'), 'auth.uid()');
select tests.authenticate_as_service_role();
select is(current_user::text, 'service_role', 'service role');
select is(nullif(current_setting('request.jwt.claims', true), ''), null, 'service role has no claims');
select tests.clear_authentication();
select is(current_user::text, 'anon', 'anon');
select is(nullif(current_setting('request.jwt.claims', true), ''), null, 'anon has no claims');
select * from finish();
rollback;
