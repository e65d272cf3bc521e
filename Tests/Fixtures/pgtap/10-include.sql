-- \ir pulls in a shared setup file next to this one.
begin;
\ir helpers/_table.psql
select plan(2);
select has_table('public', 'pgtap_notes', 'the included file created the table');
select is((select count(*)::int from public.pgtap_notes), 0, 'and it starts empty');
select * from finish();
rollback;
