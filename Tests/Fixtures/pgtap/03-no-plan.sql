-- no_plan() without finish(): the stream never gets a plan line.
begin;
select * from no_plan();
select ok(true, 'ran without a plan');
select ok(true, 'still no plan');
rollback;
