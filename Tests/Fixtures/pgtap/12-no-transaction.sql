-- No transaction control at all, and a COMMIT: the run still leaves nothing behind.
create table public.pgtap_left_behind (id int);
insert into public.pgtap_left_behind values (1), (2);
select plan(1);
select is((select count(*)::int from public.pgtap_left_behind), 2, 'rows are visible inside the file');
commit;
select * from finish();
