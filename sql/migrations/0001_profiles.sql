-- Public profiles (seed 000), one per auth user.
-- Grants are explicit because new Supabase projects (and plain Postgres) no
-- longer auto-grant public tables; the REVOKE first makes the result the same
-- on older projects whose default privileges handed ALL to every API role.

create table public.profiles (
  id         uuid not null primary key references auth.users (id),
  updated_at timestamptz,
  username   text unique,
  full_name  text,
  avatar_url text,   -- object name in bucket "avatars" (<uid>/<file>), or an external URL from OAuth
  website    text,
  constraint username_length check (char_length(username) >= 3)
);

alter table public.profiles enable row level security;

revoke all on public.profiles from public, anon, authenticated, service_role;
grant select on public.profiles to anon, authenticated;
grant insert, update on public.profiles to authenticated;
grant all on public.profiles to service_role;

-- Profiles are public by design (seed 000: "Public profiles are viewable by everyone").
create policy "Public profiles are viewable by everyone." on public.profiles
  for select to anon, authenticated
  using (true);

-- (select auth.uid()) is evaluated once per statement, not once per row.
create policy "Users can insert their own profile." on public.profiles
  for insert to authenticated
  with check ((select auth.uid()) = id);

-- WITH CHECK repeats USING so a row can never be handed over to another id.
create policy "Users can update own profile." on public.profiles
  for update to authenticated
  using ((select auth.uid()) = id)
  with check ((select auth.uid()) = id);

-- No DELETE policy: a profile goes away only with its user (0006).
