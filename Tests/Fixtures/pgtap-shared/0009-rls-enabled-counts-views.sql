-- basejump's rls_enabled(schema) counts views too, so a schema with a view fails it.
begin;
select plan(1);
select tests.rls_enabled('public');
select * from finish();
rollback;
