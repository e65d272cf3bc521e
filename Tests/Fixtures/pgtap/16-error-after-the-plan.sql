-- Every planned test passed, then an SQL error: psql stops with an error, so the file fails.
begin;
select plan(1);
select ok(true, 'fine');
select * from no_such_table;
rollback;
