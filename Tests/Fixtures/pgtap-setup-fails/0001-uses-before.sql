-- Needs only what the setup made before its error.
begin;
select plan(1);
select is((select count(*)::int from public.setup_before), 1, 'the setup''s first rows are there');
select * from finish();
rollback;
