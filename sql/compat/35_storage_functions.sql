-- rlskit compat layer: the functions Supabase's storage schema has besides the path
-- helpers (30_storage.sql), written here with the same signatures, so migrations and
-- policies that call them apply. Idempotent; installed only where storage is the stand-in.
-- They run as the caller (SECURITY INVOKER), so RLS on storage.objects applies, as there.

-- The Storage API sets storage.operation per request (e.g. 'storage.object.upload').
create or replace function storage.operation() returns text
language sql stable as $$ select current_setting('storage.operation', true) $$;

create or replace function storage.get_size_by_bucket()
returns table (size bigint, bucket_id text)
language sql stable as $$
  select sum((o.metadata ->> 'size')::bigint)::bigint as size, o.bucket_id
  from storage.objects as o group by o.bucket_id
$$;

-- What the Storage API's list endpoint calls: one level below prefix, folders first.
create or replace function storage.search(prefix text, bucketname text, limits integer default 100,
                                          levels integer default 1, offsets integer default 0,
                                          search text default '', sortcolumn text default 'name',
                                          sortorder text default 'asc')
returns table (name text, id uuid, updated_at timestamptz, created_at timestamptz,
               last_accessed_at timestamptz, metadata jsonb)
language plpgsql stable as $$
declare
  col text := case when lower(sortcolumn) in ('name', 'updated_at', 'created_at', 'last_accessed_at') then lower(sortcolumn) else 'name' end;
  dir text := case when lower(sortorder) = 'desc' then 'desc' else 'asc' end;
begin
  return query execute format($q$
    with items as (
      select (string_to_array(o.name, '/'))[$1] as part, o.name, o.id, o.updated_at, o.created_at,
             o.last_accessed_at, o.metadata, array_length(string_to_array(o.name, '/'), 1) = $1 as is_file
      from storage.objects as o
      where o.bucket_id = $2 and o.name ilike $3 || '%%' and array_length(string_to_array(o.name, '/'), 1) >= $1
        and (string_to_array(o.name, '/'))[$1] ilike '%%' || $4 || '%%'
    )
    select * from (
      select distinct on (part) part,
             case when is_file then id end, case when is_file then updated_at end,
             case when is_file then created_at end, case when is_file then last_accessed_at end,
             case when is_file then metadata end
      from items order by part, is_file
    ) as r (name, id, updated_at, created_at, last_accessed_at, metadata)
    order by %I %s nulls last, name limit $5 offset $6
  $q$, col, dir) using levels, bucketname, prefix, search, limits, offsets;
end
$$;

create or replace function storage.list_objects_with_delimiter(bucket_id text, prefix_param text, delimiter_param text,
                                                               max_keys integer default 100, start_after text default '',
                                                               next_token text default '')
returns table (name text, id uuid, metadata jsonb, updated_at timestamptz)
language sql stable as $$
  select distinct on (k.key) k.key,
         case when k.is_folder then null else k.id end,
         case when k.is_folder then null else k.metadata end,
         case when k.is_folder then null else k.updated_at end
  from (
    select case when strpos(substr(o.name, length(prefix_param) + 1), delimiter_param) > 0
                then prefix_param || split_part(substr(o.name, length(prefix_param) + 1), delimiter_param, 1) || delimiter_param
                else o.name end as key,
           strpos(substr(o.name, length(prefix_param) + 1), delimiter_param) > 0 as is_folder,
           o.id, o.metadata, o.updated_at
    from storage.objects as o
    where o.bucket_id = list_objects_with_delimiter.bucket_id and o.name like prefix_param || '%'
      and o.name > coalesce(nullif(next_token, ''), nullif(start_after, ''), '')
  ) as k
  order by k.key
  limit max_keys
$$;

-- The Storage API checks an upload with this before writing (RLS decides, as the caller).
create or replace function storage.can_insert_object(bucketid text, name text, owner uuid, metadata jsonb)
returns void language plpgsql as $$
begin
  insert into storage.objects (bucket_id, name, owner, metadata) values (bucketid, name, owner, metadata);
  raise sqlstate 'PT200' using message = 'ROLLBACK', detail = 'rollback successful insert';
end
$$;

grant execute on function storage.operation(), storage.search(text, text, integer, integer, integer, text, text, text),
  storage.list_objects_with_delimiter(text, text, text, integer, text, text),
  storage.can_insert_object(text, text, uuid, jsonb) to anon, authenticated, service_role;
