-- No plan up front: finish() prints it at the end.
begin;
select * from no_plan();
select ok(true, 'one');
select ok(true, 'two');
select * from finish();
rollback;
