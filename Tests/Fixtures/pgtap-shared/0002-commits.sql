begin;
insert into public.notes (owner_id, body) values (tests.get_supabase_uid('owner'), 'committed');
commit;
begin;
insert into public.notes (owner_id, body) values (tests.get_supabase_uid('owner'), 'rolled back');
rollback;
select plan(1);
select is(fixtures.note_count(), 1, 'what the file committed stays, what it rolled back goes');
