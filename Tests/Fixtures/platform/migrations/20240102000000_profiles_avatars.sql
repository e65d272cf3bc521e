-- Replacing or clearing an avatar asks the Storage API to delete the old object, through
-- pg_net (queued; sent after commit by pg_net's worker).
create table public.profiles (
  id         uuid primary key references auth.users (id) on delete cascade,
  username   extensions.citext unique,
  avatar_url text
);
alter table public.profiles enable row level security;
grant select, insert, update on public.profiles to authenticated;
grant select on public.profiles to anon;
create policy "profiles are public" on public.profiles for select using (true);
create policy "users insert their profile" on public.profiles for insert to authenticated
  with check ((select auth.uid()) = id);
create policy "users update their profile" on public.profiles for update to authenticated
  using ((select auth.uid()) = id) with check ((select auth.uid()) = id);

create function public.delete_old_avatar() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  key text;
begin
  if old.avatar_url is not null and old.avatar_url is distinct from new.avatar_url then
    select decrypted_secret into key from vault.decrypted_secrets where name = 'service_role_key';
    perform net.http_delete(
      url := 'https://project.supabase.co/storage/v1/object/avatars/' || old.avatar_url,
      headers := jsonb_build_object('Authorization', 'Bearer ' || coalesce(key, ''))
    );
  end if;
  return new;
end
$$;
revoke execute on function public.delete_old_avatar() from public, anon, authenticated;
create trigger before_avatar_change after update of avatar_url on public.profiles
  for each row execute function public.delete_old_avatar();

select vault.create_secret('not-a-real-key', 'service_role_key', 'used by delete_old_avatar');
