-- supabase-test-helpers: users, impersonation and RLS on a small table.
begin;
\ir helpers/_table.psql
select plan(15);

select tests.create_supabase_user('alice', 'alice@example.com');
select tests.create_supabase_user('bob', null, '+15550001', '{"role": "admin"}'::jsonb);

select isnt(tests.get_supabase_uid('alice'), tests.get_supabase_uid('bob'), 'two distinct users');
select is(tests.get_supabase_user('alice') ->> 'email', 'alice@example.com', 'get_supabase_user returns the email');
select throws_ok($$ select tests.get_supabase_uid('carol') $$, 'P0001', 'User with identifier carol not found', 'unknown users raise');

select tests.authenticate_as('alice');
select is(auth.uid(), tests.get_supabase_uid('alice'), 'auth.uid() is alice');
select ok(not current_setting('request.jwt.claims')::jsonb ? 'role', 'the claims carry no role, as basejump sets them');
select is(current_user::text, 'authenticated', 'the role is switched');
insert into public.pgtap_notes (body) values ('alice note');
select is((select count(*)::int from public.pgtap_notes), 1, 'alice sees her note');
select throws_ok($$ insert into public.pgtap_notes (owner_id, body) values (tests.get_supabase_uid('bob'), 'forged') $$,
                 '42501', null, 'alice cannot insert a note owned by bob');

select tests.authenticate_as('bob');
select is_empty($$ select * from public.pgtap_notes $$, 'bob sees none of alice''s notes');
update public.pgtap_notes set body = 'bob was here';
select is((select auth.jwt() -> 'user_metadata' ->> 'role'), 'admin', 'metadata reaches the claims');

select tests.clear_authentication();
select is(auth.uid(), null, 'anon has no uid');
select is(nullif(current_setting('request.jwt.claims', true), ''), null, 'anon has no claims');

select tests.authenticate_as_service_role();
select is((select body from public.pgtap_notes), 'alice note', 'service role sees the note, untouched by bob');

reset role;
select tests.rls_enabled('public', 'pgtap_notes');

select tests.freeze_time('2020-01-01 00:00:00+00');
select is(now(), '2020-01-01 00:00:00+00'::timestamptz, 'time is frozen');
select tests.unfreeze_time();
select * from finish();
rollback;
