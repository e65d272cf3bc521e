-- Photo posts (seed 003). A post stores the object's path in bucket
-- "post-images", never a URL: paths are stable, URLs (signed, CDN) are not.

create table public.posts (
  id         bigint generated always as identity primary key,
  author_id  uuid not null default auth.uid() references auth.users (id) on delete cascade,
  image_path text not null,
  caption    text,
  created_at timestamptz not null default now(),
  constraint posts_image_path_not_url check (image_path !~* '^[a-z][a-z0-9+.-]*:'),
  -- the image must sit in the author's own folder, as the storage policies require
  constraint posts_image_path_in_author_folder check (image_path like author_id::text || '/_%')
);

-- Policies filter on author_id, and the user-deletion cascade looks it up.
create index posts_author_id_idx on public.posts (author_id);

alter table public.posts enable row level security;

revoke all on public.posts from public, anon, authenticated, service_role;
grant select on public.posts to anon, authenticated;
grant insert, update, delete on public.posts to authenticated;
grant all on public.posts to service_role;

-- The feed shows everyone's posts.
create policy "Posts are viewable by everyone" on public.posts
  for select to anon, authenticated
  using (true);

create policy "Users create their own posts" on public.posts
  for insert to authenticated
  with check ((select auth.uid()) = author_id);

create policy "Users update their own posts" on public.posts
  for update to authenticated
  using ((select auth.uid()) = author_id)
  with check ((select auth.uid()) = author_id);

create policy "Users delete their own posts" on public.posts
  for delete to authenticated
  using ((select auth.uid()) = author_id);
