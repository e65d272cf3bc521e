-- A mistyped meta-command: psql rejects it too.
begin;
select plan(1);
\sett answer 42
select ok(true, 'never runs');
select * from finish();
rollback;
