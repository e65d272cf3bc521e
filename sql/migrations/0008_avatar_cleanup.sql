-- The avatar trigger and what profiles.avatar_url may hold (the storage
-- cleanup, part 4 of 4; see 0005_storage_settings.sql).

-- The trigger: only a non-empty avatar_url that changed or went away, only when
-- it names an object (not an external URL such as an OAuth avatar), only when
-- the whole name is safe, and only inside the profile owner's own folder (its
-- first segment; with no '.' or '..' segments that is the whole path's folder).
create function private.delete_old_avatar()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  old_name text := old.avatar_url;
  problem  text;
begin
  if coalesce(old_name, '') <> ''
     and (tg_op = 'DELETE' or old_name <> coalesce(new.avatar_url, '')) then
    if old_name ~* '^[a-z][a-z0-9+.-]*:' then
      return null;  -- an external URL: nothing of ours to delete
    end if;
    begin
      problem := private.storage_path_problem('avatars', old_name);
    exception when others then
      problem := pg_catalog.format('cannot be checked: %s (SQLSTATE %s)', sqlerrm, sqlstate);
    end;
    if problem is not null then
      raise warning 'not deleting avatar "%" of profile %: %',
        pg_catalog.left(pg_catalog.regexp_replace(old_name, '[\x01-\x1f\x7f-\x9f]', '?', 'g'), 200), old.id, problem;
    elsif pg_catalog.split_part(old_name, '/', 1) <> old.id::text or pg_catalog.strpos(old_name, '/') = 0 then
      raise warning 'not deleting avatar "%" of profile %: it is outside the user''s folder',
        pg_catalog.left(old_name, 200), old.id;
    else
      begin
        perform private.request_storage_deletion('avatars', old_name);
      exception when others then
        raise warning 'could not request deletion of avatar "%": % (SQLSTATE %)',
          old_name, sqlerrm, sqlstate;
      end;
    end if;
  end if;
  return null;  -- AFTER trigger: the return value is ignored
end;
$$;

-- What profiles.avatar_url may hold: nothing, an http(s) URL (an OAuth avatar),
-- or an object name in bucket avatars that private.storage_path_problem accepts.
-- Anything else (a traversal, a javascript: URL) is refused when written, so the
-- cleanup above never meets it. At sign-up nothing may fail: a bad value from the
-- user's metadata (written by private.handle_new_user, so one trigger level down)
-- becomes NULL with a WARNING instead. Values already stored are left alone.
create function private.check_avatar_url()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  value   text := new.avatar_url;
  problem text;
begin
  if coalesce(value, '') = '' or (tg_op = 'UPDATE' and value is not distinct from old.avatar_url) then
    return new;
  end if;
  if value ~* '^[a-z][a-z0-9+.-]*:' then
    if value !~* '^https?://[^/?#@\s]' or value ~ '[\x01-\x20\x7f-\x9f]' then
      problem := 'a URL must be http(s) with a host, and no spaces or control characters';
    end if;
  else
    problem := private.storage_path_problem('avatars', value);
  end if;
  if problem is null then
    return new;
  end if;
  if tg_op = 'INSERT' and pg_catalog.pg_trigger_depth() > 1 then
    raise warning 'avatar_url of new profile % dropped: %', new.id, problem;
    new.avatar_url := null;
    return new;
  end if;
  raise exception 'avatar_url is not allowed: %', problem
    using errcode = '23514',
          hint = 'use an object name in bucket avatars such as ''<user id>/avatar.png'', or an https:// URL';
end;
$$;

create trigger check_avatar_url
  before insert or update of avatar_url on public.profiles
  for each row execute function private.check_avatar_url();


create trigger on_profile_avatar_replaced
  after update of avatar_url or delete on public.profiles
  for each row execute function private.delete_old_avatar();

revoke all on function private.delete_old_avatar() from public, anon, authenticated, service_role;
revoke all on function private.check_avatar_url() from public, anon, authenticated, service_role;
