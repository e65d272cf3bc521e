-- An included file includes one that is not there: this file fails at that line.
begin;
select plan(1);
\ir helpers/_includes_missing.psql
select pass('never reached');
select * from finish();
rollback;
