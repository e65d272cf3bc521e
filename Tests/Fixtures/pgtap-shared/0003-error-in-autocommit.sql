-- Fails: the insert before the error stays (autocommit), the failing one does not.
select plan(2);
insert into public.notes (owner_id, body) values (tests.get_supabase_uid('owner'), 'before the error');
select ok(true, 'ran');
insert into public.notes (owner_id, body) values (tests.get_supabase_uid('nobody'), 'never');
select ok(true, 'never reached');
