-- Outside a transaction block psql commits each statement, so what the helpers set for the
-- transaction (role, claims) is gone by the next one; a session-level SET stays.
select plan(6);
select tests.authenticate_as('owner');
select is(current_user::text, session_user::text, 'the role ended with its statement');
select is(nullif(current_setting('request.jwt.claims', true), ''), null, 'so did the claims');
set role anon;
select is(current_user::text, 'anon', 'a session-level SET stays');
reset role;
begin;
select tests.authenticate_as('owner');
select is(current_user::text, 'authenticated', 'inside a transaction block it lasts');
commit;
select is(current_user::text, session_user::text, 'until the COMMIT');
begin;
set role anon;
rollback;
select is(current_user::text, session_user::text, 'a SET rolled back is undone');
