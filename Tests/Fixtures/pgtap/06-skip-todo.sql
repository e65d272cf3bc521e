-- SKIP and TODO: a failing TODO does not fail the file.
begin;
select plan(4);
select ok(true, 'plain pass');
select skip('no storage API here', 1);
select todo('profile history is not built yet', 1);
select ok(false, 'profile history is kept');
select ok(true, 'last');
select * from finish();
rollback;
