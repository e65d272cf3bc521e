-- One assertion fails; pgTAP prints have/want diagnostics.
begin;
select plan(3);
select ok(true, 'first passes');
select is(2 * 2, 5, 'arithmetic is wrong on purpose');
select ok(true, 'third passes');
select * from finish();
rollback;
