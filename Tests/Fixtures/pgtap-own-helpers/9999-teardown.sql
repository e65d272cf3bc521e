drop function tests.create_supabase_user(text, text, text);
drop function tests.get_supabase_uid(text);
select plan(1);
select ok(true, 'own helpers dropped');
