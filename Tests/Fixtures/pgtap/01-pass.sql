-- Passing assertions, own transaction control.
begin;
select plan(4);
select ok(true, 'true is ok');
select is(1 + 1, 2, 'one plus one');
select isnt('a'::text, 'b', 'a is not b');
select has_schema('public', 'public exists');
select * from finish();
rollback;
