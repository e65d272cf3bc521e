-- Plans two, runs three.
begin;
select plan(2);
select ok(true, 'one');
select ok(true, 'two');
select ok(true, 'three is past the plan');
select * from finish();
rollback;
