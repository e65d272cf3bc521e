-- Notices and diagnostics are comments, not tests.
begin;
select plan(1);
do $$ begin raise notice 'a notice'; end $$;
select diag('a diagnostic');
select ok(true, 'after the noise');
select * from finish();
rollback;
