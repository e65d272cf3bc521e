-- \i of a file that is not there: psql stops this file there (ON_ERROR_STOP); the others run.
begin;
select plan(2);
select pass('before the include');
\i helpers/not-there.sql
select pass('never reached');
select * from finish();
rollback;
