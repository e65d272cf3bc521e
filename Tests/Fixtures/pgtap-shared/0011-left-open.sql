-- A transaction block left open: psql's exit rolls it back.
begin;
create table public.left_open (id int);
select plan(1);
select has_table('public', 'left_open', 'there inside the file');
