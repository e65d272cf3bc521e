-- The project's own tests.rls_enabled, written against its own name: it must be used as is.
begin;
create or replace function tests.rls_enabled(testing_schema text)
returns text language sql as $$
  select ok(not exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
                         where n.nspname = rls_enabled.testing_schema and c.relkind = 'r' and not c.relrowsecurity),
            'tables in ' || rls_enabled.testing_schema || ' have RLS (the project''s own check)')
$$;
select plan(1);
select tests.rls_enabled('public');
select * from finish();
rollback;
