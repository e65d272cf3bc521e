begin;
select plan(2);
select is(fixtures.note_count(), 2, 'the commit of 0002 and the autocommit insert of 0003 are seen');
select is((select count(*)::int from public.notes where body = 'never'), 0, 'the failed statement left nothing');
select * from finish();
rollback;
