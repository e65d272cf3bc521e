-- A suite carrying its own, older copy of the helpers (no metadata argument), kept for the
-- files after it, one of them inside a committed block.
create schema if not exists tests;

create or replace function tests.create_supabase_user(identifier text, email text default null, phone text default null)
returns uuid security definer set search_path = auth, pg_temp language plpgsql as $$
declare
  uid uuid := gen_random_uuid();
begin
  insert into auth.users (id, email, phone, raw_user_meta_data)
  values (uid, coalesce(email, identifier || '@own.test'), phone, jsonb_build_object('own_copy', identifier));
  return uid;
end
$$;

begin;
create or replace function tests.get_supabase_uid(identifier text)
returns uuid security definer set search_path = auth, pg_temp language sql as $$
  select id from auth.users where raw_user_meta_data ->> 'own_copy' = identifier limit 1
$$;
commit;

select plan(1);
select ok(true, 'own helpers installed');
