drop schema fixtures cascade;
select plan(1);
select hasnt_schema('fixtures', 'the teardown file dropped the setup schema');
