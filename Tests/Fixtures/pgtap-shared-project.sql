-- The project's own migrations, as the suite below expects them (not a test file).
alter default privileges revoke execute on functions from public;
revoke all on schema public from public, anon;
create table public.notes (
  id bigint generated always as identity primary key,
  owner_id uuid references auth.users (id),
  body text not null
);
alter table public.notes enable row level security;
grant usage on schema public to authenticated, service_role;
grant select, insert on public.notes to authenticated;
grant all on public.notes to service_role;
create policy "own notes" on public.notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create view public.notes_view as select id, body from public.notes;
create table public.signup_log (id uuid, by_role text);
alter table public.signup_log enable row level security;
create function public.log_signup() returns trigger language plpgsql as $$
begin insert into public.signup_log values (new.id, current_user::text); return new; end $$;
create trigger log_signup after insert on auth.users for each row execute function public.log_signup();
