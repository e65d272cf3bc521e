-- Written when Supabase granted new public tables to the API roles: no GRANT here.
create table public.notes (
  id bigint generated always as identity primary key,
  owner uuid not null default auth.uid(),
  body text not null
);
alter table public.notes enable row level security;
create policy "owners read their notes" on public.notes
  for select to authenticated using (owner = (select auth.uid()));
create policy "owners add notes" on public.notes
  for insert to authenticated with check (owner = (select auth.uid()));
