-- freeze_time under the project's default-ACL revoke, called by the role a test switches to.
begin;
select plan(2);
select tests.authenticate_as('owner');
select tests.freeze_time('2020-01-01 00:00:00+00');
select is(now(), '2020-01-01 00:00:00+00'::timestamptz, 'time is frozen for authenticated');
select tests.unfreeze_time();
select isnt(now(), '2020-01-01 00:00:00+00'::timestamptz, 'and runs again');
select * from finish();
rollback;
