-- rlskit compat layer: the part of Supabase Storage's schema that buckets and
-- storage policies depend on. Idempotent. Installed only where the real thing is
-- absent; the guard below refuses to touch a storage.objects that is not ours.
--
-- Note: on plain Postgres only the owner of storage.objects (here
-- supabase_storage_admin) or a superuser may CREATE POLICY on it; Supabase lets
-- `postgres` do it through supautils. rlskit applies migrations as the connecting
-- superuser, so storage policies in migrations work here.

do $$
begin
  if to_regclass('storage.objects') is not null
     and coalesce(obj_description(to_regnamespace('storage')::oid, 'pg_namespace'), '')
         <> 'rlskit stand-in' then
    raise exception 'storage.objects exists and is not the rlskit stand-in; refusing to modify it'
      using errcode = '55000';
  end if;
end
$$;

create schema if not exists storage authorization supabase_storage_admin;
alter schema storage owner to supabase_storage_admin;
comment on schema storage is 'rlskit stand-in';
grant usage on schema storage to anon, authenticated, service_role;

do $$
begin
  if to_regtype('storage.buckettype') is null then
    create type storage.buckettype as enum ('STANDARD', 'ANALYTICS', 'VECTOR');
  end if;
end
$$;
alter type storage.buckettype owner to supabase_storage_admin;

create table if not exists storage.buckets (
  id                 text not null,
  name               text not null,
  owner              uuid,                -- deprecated, use owner_id
  created_at         timestamptz default now(),
  updated_at         timestamptz default now(),
  public             boolean default false,
  avif_autodetection boolean default false,
  file_size_limit    bigint,
  allowed_mime_types text[],
  owner_id           text,
  type               storage.buckettype not null default 'STANDARD',
  constraint buckets_pkey primary key (id)
);
create unique index if not exists bname on storage.buckets (name);

create table if not exists storage.objects (
  id               uuid not null default gen_random_uuid(),
  bucket_id        text,
  name             text,
  owner            uuid,                  -- deprecated, use owner_id
  created_at       timestamptz default now(),
  updated_at       timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata         jsonb,
  path_tokens      text[] generated always as (string_to_array(name, '/')) stored,
  version          text,
  owner_id         text,
  user_metadata    jsonb,
  constraint objects_pkey primary key (id),
  constraint "objects_bucketId_fkey" foreign key (bucket_id) references storage.buckets (id)
);
create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);
create index if not exists name_prefix_search on storage.objects (name text_pattern_ops);

-- Uploads in progress through the S3 protocol (storage 2024, sizes bigint, metadata 2025).
create table if not exists storage.s3_multipart_uploads (
  id               text not null,
  in_progress_size bigint not null default 0,
  upload_signature text not null,
  bucket_id        text not null,
  key              text collate "C" not null,
  version          text not null,
  owner_id         text,
  created_at       timestamptz not null default now(),
  user_metadata    jsonb,
  metadata         jsonb,
  constraint s3_multipart_uploads_pkey primary key (id),
  constraint s3_multipart_uploads_bucket_id_fkey foreign key (bucket_id) references storage.buckets (id)
);
create index if not exists idx_multipart_uploads_list
  on storage.s3_multipart_uploads (bucket_id, key, created_at);

create table if not exists storage.s3_multipart_uploads_parts (
  id          uuid not null default gen_random_uuid(),
  upload_id   text not null,
  size        bigint not null default 0,
  part_number integer not null,
  bucket_id   text not null,
  key         text collate "C" not null,
  etag        text not null,
  owner_id    text,
  version     text not null,
  created_at  timestamptz not null default now(),
  constraint s3_multipart_uploads_parts_pkey primary key (id),
  constraint s3_multipart_uploads_parts_upload_id_fkey foreign key (upload_id)
    references storage.s3_multipart_uploads (id) on delete cascade,
  constraint s3_multipart_uploads_parts_bucket_id_fkey foreign key (bucket_id) references storage.buckets (id)
);

alter table storage.buckets owner to supabase_storage_admin;
alter table storage.objects owner to supabase_storage_admin;
alter table storage.s3_multipart_uploads owner to supabase_storage_admin;
alter table storage.s3_multipart_uploads_parts owner to supabase_storage_admin;
alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
alter table storage.s3_multipart_uploads enable row level security;
alter table storage.s3_multipart_uploads_parts enable row level security;
-- The API roles only read them (under RLS, no policy: nothing); the Storage API writes as service_role.
grant select on storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts to anon, authenticated;
grant all on storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts to service_role;

-- RLS does the filtering, exactly as on Supabase.
grant all on storage.buckets to anon, authenticated, service_role;
grant all on storage.objects to anon, authenticated, service_role;

-- Path helpers, same bodies and results as Supabase's:
--   'a/b/c.png' -> {a,b}, 'c.png', 'png'     'c.png' -> {}, 'c.png', 'png'
--   ''          -> NULL, NULL, NULL          NULL    -> NULL, NULL, NULL
--   'a/b/'      -> {a,b}, '', ''             'a/README' -> {a}, 'README', 'README'
--   'a/x.tar.gz' -> extension 'gz'           '/a/b' -> {'',a}, 'b', 'b'
-- Policies compare (storage.foldername(name))[1]; a name without a folder yields
-- {} and [1] is NULL, so such objects never match a per-user folder policy.
create or replace function storage.foldername(name text) returns text[]
language plpgsql immutable
as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1:array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text
language plpgsql immutable
as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create or replace function storage.extension(name text) returns text
language plpgsql immutable
as $$
declare
  _parts text[];
  _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

create or replace function storage.update_updated_at_column() returns trigger
language plpgsql
as $$
begin
  new.updated_at = now();
  return new;
end;
$$;

-- Deleting rows would orphan the bytes in the object store, so Supabase refuses
-- SQL deletes unless the Storage API itself opted in for its transaction.
create or replace function storage.protect_delete() returns trigger
language plpgsql
as $$
begin
  if coalesce(current_setting('storage.allow_delete_query', true), 'false') <> 'true' then
    raise exception 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      using hint = 'This prevents accidental data loss from orphaned objects.',
            errcode = '42501';
  end if;
  return null;
end;
$$;

alter function storage.foldername(text) owner to supabase_storage_admin;
alter function storage.filename(text) owner to supabase_storage_admin;
alter function storage.extension(text) owner to supabase_storage_admin;
alter function storage.update_updated_at_column() owner to supabase_storage_admin;
alter function storage.protect_delete() owner to supabase_storage_admin;

create or replace trigger update_objects_updated_at
  before update on storage.objects
  for each row execute function storage.update_updated_at_column();

create or replace trigger protect_objects_delete
  before delete on storage.objects
  for each statement execute function storage.protect_delete();

create or replace trigger protect_buckets_delete
  before delete on storage.buckets
  for each statement execute function storage.protect_delete();
