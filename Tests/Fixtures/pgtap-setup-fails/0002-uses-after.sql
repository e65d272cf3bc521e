-- Needs what the setup would have made after its error.
begin;
select plan(1);
select is((select count(*)::int from public.setup_after), 0, 'never reached');
select * from finish();
rollback;
