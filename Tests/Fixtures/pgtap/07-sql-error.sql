-- An SQL error mid-file stops it, as psql with ON_ERROR_STOP does.
begin;
select plan(3);
select ok(true, 'before the error');
select count(*)
  from public.no_such_table;
select ok(true, 'never runs');
select ok(true, 'never runs either');
select * from finish();
rollback;
