-- Sign-up creates the user's profile, and nothing else (seed 002: no stray rows).
-- Functions live in "private", a schema the data API does not expose and the API
-- roles cannot even look into.

create schema private;
revoke all on schema private from public, anon, authenticated, service_role;

-- Runs inside GoTrue's INSERT as supabase_auth_admin, which has no rights in
-- public: hence SECURITY DEFINER, with an empty search_path and qualified names
-- so no caller-controlled schema can shadow anything.
-- It must never make sign-up fail: the username (metadata "username", else the
-- registration form's "nickname", seed 004) is dropped to NULL when it is blank,
-- shorter than 3 characters or already taken; any other error is reported as a
-- WARNING and the account is still created (the user can add a profile later).
create function private.handle_new_user()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  meta     jsonb := coalesce(new.raw_user_meta_data, '{}'::jsonb);
  wanted   text  := coalesce(nullif(btrim(meta ->> 'username'), ''),
                             nullif(btrim(meta ->> 'nickname'), ''));
begin
  if pg_catalog.char_length(wanted) < 3 then
    wanted := null;
  end if;

  begin
    -- ON CONFLICT without a target covers the username index too: a taken name
    -- inserts nothing, and we retry without it.
    insert into public.profiles (id, username, full_name, avatar_url)
    values (new.id, wanted, meta ->> 'full_name', meta ->> 'avatar_url')
    on conflict do nothing;

    if not found then
      insert into public.profiles (id, username, full_name, avatar_url)
      values (new.id, null, meta ->> 'full_name', meta ->> 'avatar_url')
      on conflict (id) do nothing;
    end if;
  exception when others then
    raise warning 'handle_new_user: no profile created for user %: % (SQLSTATE %)',
      new.id, sqlerrm, sqlstate;
  end;

  return new;
end;
$$;

revoke all on function private.handle_new_user() from public, anon, authenticated, service_role;

create trigger on_auth_user_created
  after insert on auth.users
  for each row execute function private.handle_new_user();
