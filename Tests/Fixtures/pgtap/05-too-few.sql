-- Plans four, runs two.
begin;
select plan(4);
select ok(true, 'one');
select ok(true, 'two');
select * from finish();
rollback;
