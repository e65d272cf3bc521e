-- psql variables and harmless meta-commands.
\set ON_ERROR_STOP 1
\pset format unaligned
\timing off
\set answer 42
\set greeting 'it''s me'
\set tbl pg_class
begin;
select plan(3);
\echo # variables set
select is(:answer, 42, 'plain variable');
select is(:'greeting'::text, 'it''s me', 'literal variable');
select ok((select count(*) from :"tbl") > 0, 'identifier variable');
select * from finish();
rollback;
