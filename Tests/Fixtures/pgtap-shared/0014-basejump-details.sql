-- More of basejump's 0.0.6 helpers as suites observe them.
begin;
select plan(6);
select tests.create_supabase_user('stamped');
select ok((select created_at is not null and updated_at is not null from auth.users
            where id = tests.get_supabase_uid('stamped')), 'a new user has created_at and updated_at');
select throws_ok($$ select tests.authenticate_as('nobody') $$, 'User with identifier nobody not found');
select is(current_user::text, session_user::text, 'a failed authenticate_as leaves the role alone');
-- Described without spaces around the names, as basejump words it.
select tests.rls_enabled('public', 'notes');
select is((select provolatile::text from pg_proc where oid = 'test_overrides.now()'::regprocedure), 'v',
          'test_overrides.now() is volatile');
-- The project revoked execute from public by default; basejump's install grants the API roles
-- execute on functions created later in schema tests.
create function tests.project_answer() returns int language sql as $$ select 42 $$;
set local role authenticated;
select is(tests.project_answer(), 42, 'a project function in tests is executable by authenticated');
reset role;
select * from finish();
rollback;
