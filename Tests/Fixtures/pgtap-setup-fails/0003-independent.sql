-- Needs nothing from the setup.
begin;
select plan(1);
select pass('independent of the setup');
select * from finish();
rollback;
