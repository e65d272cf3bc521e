-- Deleting a user (Admin API / dashboard) removes the profile first. profiles.id
-- references auth.users without ON DELETE CASCADE, as in the tutorial, so without
-- this the deletion would fail; the profile's own delete trigger then asks for
-- the avatar's removal (0008). posts go by ON DELETE CASCADE.
-- Runs as supabase_auth_admin inside GoTrue, which has no rights in public:
-- hence SECURITY DEFINER with an empty search_path.

create function private.delete_old_profile()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from public.profiles where id = old.id;
  return old;
end;
$$;

revoke all on function private.delete_old_profile() from public, anon, authenticated, service_role;

create trigger before_delete_user
  before delete on auth.users
  for each row execute function private.delete_old_profile();
