-- Object names that may go into a Storage API URL, and the URL itself (the
-- storage cleanup, part 2 of 4; see 0005_storage_settings.sql).

-- Why a bucket id or object name must not go into a Storage API URL, or null
-- when it may. The one place for these rules in SQL (StoragePath.swift holds
-- the same ones for the drain; a test runs both over the same names). HTTP
-- clients and proxies resolve '.' and '..' segments, some decode '%2e' or
-- '%252e' first or map look-alikes such as U+FF0E to '.', and '\' is a
-- separator to some servers, so any of them could send the service key's
-- DELETE to another path (e.g. the Auth admin API). Empty segments are
-- refused too ('a//b' is not the name 'a/b').
create function private.storage_path_problem(bucket_id text, object_name text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  label text;
  part  text;
  form  text;
  forms text[];
begin
  foreach label in array array['bucket id', 'object name'] loop
    part := case label when 'bucket id' then bucket_id else object_name end;
    if coalesce(part, '') = '' then
      return label || ' is empty';
    end if;
    forms := array[part];
    -- ASCII is unchanged by NFKC, and normalize() needs a UTF8 database.
    if part ~ '[^\x01-\x7f]' then
      forms := forms || pg_catalog.normalize(part, 'NFKC');
    end if;
    foreach form in array forms loop
      if form ~ '[\x01-\x1f\x7f-\x9f]' then
        return label || ' contains a control character';
      elsif pg_catalog.strpos(form, E'\\') > 0 then
        return label || ' contains a backslash';
      elsif form ~* '%(2e|2f|5c|25|[01][0-9a-f]|7f|c2%[89][0-9a-f])' then
        return label || ' contains a percent-encoded dot, slash, backslash, percent sign or control character';
      elsif label = 'bucket id' and pg_catalog.strpos(form, '/') > 0 then
        return 'bucket id contains a slash';
      elsif pg_catalog.string_to_array(form, '/') && array['', '.', '..'] then
        return label || ' has an empty, "." or ".." segment';
      end if;
    end loop;
  end loop;
  return null;
end;
$$;

-- Percent-encodes every path segment of an object name for the Storage API URL
-- (keeps '/', encodes everything outside RFC 3986's unreserved set, as UTF-8).
-- Refuses (22023) what private.storage_path_problem refuses, so no caller can
-- build a URL that leaves /storage/v1/object/<bucket>/.
create function private.urlencode_object_path(object_name text)
returns text
language plpgsql
immutable
strict
set search_path = ''
as $$
declare
  problem text := private.storage_path_problem('bucket', object_name);
begin
  if problem is not null then
    raise exception 'refusing storage object name: %', problem using errcode = '22023';
  end if;
  return (
    select pg_catalog.string_agg(enc.segment, '/' order by seg.ord)
    from pg_catalog.unnest(pg_catalog.string_to_array(object_name, '/')) with ordinality as seg(part, ord)
    cross join lateral (
      select pg_catalog.string_agg(
               case
                 when b.byte between 48 and 57 or b.byte between 65 and 90
                   or b.byte between 97 and 122 or b.byte in (45, 46, 95, 126)
                 then pg_catalog.chr(b.byte)
                 else '%' || pg_catalog.upper(pg_catalog.lpad(pg_catalog.to_hex(b.byte), 2, '0'))
               end, '' order by b.i) as segment
      from (
        select i, pg_catalog.get_byte(pg_catalog.convert_to(seg.part, 'UTF8'), i) as byte
        from pg_catalog.generate_series(0, pg_catalog.octet_length(pg_catalog.convert_to(seg.part, 'UTF8')) - 1) as i
      ) as b
    ) as enc);
end;
$$;

-- The only URL the deletion backends send to: <api>/storage/v1/object/<bucket>/<name>.
create function private.storage_object_url(api_url text, bucket_id text, object_name text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  problem text := private.storage_path_problem(bucket_id, object_name);
begin
  if api_url ~ '[?#[:space:]\x01-\x1f\x7f]' then
    raise exception 'the storage API URL must have no query, fragment, spaces or control characters'
      using errcode = '22023';
  end if;
  if problem is not null then
    raise exception 'refusing storage object "%/%": %',
      pg_catalog.left(pg_catalog.regexp_replace(bucket_id, '[\x01-\x1f\x7f-\x9f]', '?', 'g'), 100),
      pg_catalog.left(pg_catalog.regexp_replace(object_name, '[\x01-\x1f\x7f-\x9f]', '?', 'g'), 200), problem
      using errcode = '22023';
  end if;
  return pg_catalog.rtrim(api_url, '/') || '/storage/v1/object/'
         || private.urlencode_object_path(bucket_id) || '/'
         || private.urlencode_object_path(object_name);
end;
$$;

revoke all on function private.storage_path_problem(text, text) from public, anon, authenticated, service_role;
revoke all on function private.urlencode_object_path(text) from public, anon, authenticated, service_role;
revoke all on function private.storage_object_url(text, text, text) from public, anon, authenticated, service_role;
