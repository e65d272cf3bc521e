-- Buckets for avatars (seed 000) and post images (seed 003), one folder per user:
-- every object name starts with "<auth uid>/".
--
-- Both buckets are public: public URLs are served without RLS, so reading needs
-- no SELECT policy for everyone. A broad SELECT policy on a public bucket would
-- only let anyone LIST every object, which is what the audit flags.
-- On plain Postgres only a superuser or the table owner may create these
-- policies (Supabase allows `postgres` via supautils).

insert into storage.buckets (id, name, public)
values ('avatars', 'avatars', true),
       ('post-images', 'post-images', true)
on conflict (id) do nothing;

-- One policy per command for both buckets (several permissive policies per
-- command are OR-ed and each evaluated; one is simpler to read and to audit).
-- SELECT on the own folder is required too: the Storage API deletes with
-- DELETE ... RETURNING and upserts with INSERT ... ON CONFLICT DO UPDATE.
create policy "Users read objects in their own folder" on storage.objects
  for select to authenticated
  using (
    bucket_id in ('avatars', 'post-images')
    and (storage.foldername(name))[1] = (select auth.uid())::text
  );

create policy "Users upload into their own folder" on storage.objects
  for insert to authenticated
  with check (
    bucket_id in ('avatars', 'post-images')
    and (storage.foldername(name))[1] = (select auth.uid())::text
  );

-- Same test in USING and WITH CHECK: an object cannot be moved (renamed) into
-- another user's folder.
create policy "Users update objects in their own folder" on storage.objects
  for update to authenticated
  using (
    bucket_id in ('avatars', 'post-images')
    and (storage.foldername(name))[1] = (select auth.uid())::text
  )
  with check (
    bucket_id in ('avatars', 'post-images')
    and (storage.foldername(name))[1] = (select auth.uid())::text
  );

create policy "Users delete objects in their own folder" on storage.objects
  for delete to authenticated
  using (
    bucket_id in ('avatars', 'post-images')
    and (storage.foldername(name))[1] = (select auth.uid())::text
  );
