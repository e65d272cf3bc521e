-- rlskit stand-in for pg_tle: the pgtle functions migrations call to register extensions.
-- Registrations are kept in pgtle.extensions so later calls see them, but CREATE EXTENSION of
-- a registered one is not possible here (PostgreSQL reads extensions from files; pg_tle hooks
-- that in C): it fails with "is not available", and rlskit names it.

create type pgtle.pg_tle_features as enum ('passcheck', 'clientauth');

create table pgtle.extensions (
  name        text not null,
  version     text not null,
  description text,
  ext         text not null,
  requires    text[],
  is_default  boolean not null default false,
  primary key (name, version)
);

create table pgtle.feature_info (
  feature   pgtle.pg_tle_features not null,
  schema_name text not null,
  proname   text not null,
  obj_identity text not null,
  primary key (feature, obj_identity)
);

create function pgtle.install_extension(name text, version text, description text, ext text, requires text[] default null)
returns boolean language plpgsql as $$
begin
  if exists (select 1 from pgtle.extensions e where e.name = install_extension.name) then
    raise exception 'extension "%" already installed', name using errcode = '42710';
  end if;
  -- dbdev's install snippet fetches the package over http: the http stand-in sends nothing and
  -- answers {}, so no version or SQL arrives. Say that, not a not-null violation.
  if version is null or ext is null then
    raise exception 'pgtle.install_extension(%): no % given; a package fetched over http (the dbdev install snippet) is never fetched on rlskit''s throwaway server, whose http stand-in answers {}',
      name, case when version is null then 'version' else 'SQL' end
      using errcode = '22004',
            hint = 'Keep the dbdev install out of the migrations rlskit applies, or check the project against a Supabase database (--database-url).';
  end if;
  insert into pgtle.extensions values (name, version, description, ext, requires, true);
  return true;
end
$$;

create function pgtle.install_extension_version_sql(name text, version text, ext text)
returns boolean language plpgsql as $$
begin
  if not exists (select 1 from pgtle.extensions e where e.name = install_extension_version_sql.name) then
    raise exception 'extension "%" is not installed', name using errcode = '42704';
  end if;
  insert into pgtle.extensions (name, version, description, ext, requires)
  select e.name, install_extension_version_sql.version, e.description, install_extension_version_sql.ext, e.requires
    from pgtle.extensions e
   where e.name = install_extension_version_sql.name and e.is_default;
  return true;
end
$$;

create function pgtle.set_default_version(name text, version text)
returns boolean language plpgsql as $$
begin
  update pgtle.extensions e set is_default = (e.version = set_default_version.version)
   where e.name = set_default_version.name;
  if not found then
    raise exception 'extension "%" is not installed', name using errcode = '42704';
  end if;
  return true;
end
$$;

create function pgtle.uninstall_extension(extname text)
returns boolean language plpgsql as $$
begin
  delete from pgtle.extensions where name = extname;
  if not found then
    raise exception 'extension "%" is not installed', extname using errcode = '42704';
  end if;
  return true;
end
$$;

create function pgtle.uninstall_extension(extname text, version text)
returns boolean language plpgsql as $$
begin
  delete from pgtle.extensions e where e.name = extname and e.version = uninstall_extension.version;
  if not found then
    raise exception 'version "%" of extension "%" is not installed', version, extname using errcode = '42704';
  end if;
  return true;
end
$$;

create function pgtle.uninstall_extension_if_exists(extname text)
returns boolean language sql as $$
  with d as (delete from pgtle.extensions where name = extname returning 1)
  select exists (select 1 from d)
$$;

create function pgtle.available_extensions(out name name, out default_version text, out comment text)
returns setof record language sql stable as $$
  select e.name::name, e.version, e.description from pgtle.extensions e where e.is_default order by 1
$$;

create function pgtle.available_extension_versions(out name name, out version text, out superuser boolean,
  out trusted boolean, out relocatable boolean, out schema name, out requires name[], out comment text)
returns setof record language sql stable as $$
  select e.name::name, e.version, false, false, false, null::name, e.requires::name[], e.description
    from pgtle.extensions e order by 1, 2
$$;

create function pgtle.extension_update_paths(name name, out source text, out target text, out path text)
returns setof record language sql stable as $$
  select a.version, b.version, a.version || '--' || b.version
    from pgtle.extensions a join pgtle.extensions b on a.name = b.name and a.version <> b.version
   where a.name = extension_update_paths.name
$$;

create function pgtle.register_feature(proc regproc, feature pgtle.pg_tle_features)
returns void language sql as $$
  insert into pgtle.feature_info
  select feature, n.nspname, p.proname, proc::regprocedure::text
    from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace where p.oid = proc
$$;

create function pgtle.register_feature_if_not_exists(proc regproc, feature pgtle.pg_tle_features)
returns boolean language sql as $$
  with i as (
    insert into pgtle.feature_info
    select feature, n.nspname, p.proname, proc::regprocedure::text
      from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace where p.oid = proc
    on conflict do nothing returning 1)
  select exists (select 1 from i)
$$;

create function pgtle.unregister_feature(proc regproc, feature pgtle.pg_tle_features)
returns void language sql as $$
  delete from pgtle.feature_info f where f.feature = unregister_feature.feature and f.obj_identity = proc::regprocedure::text
$$;

create function pgtle.unregister_feature_if_exists(proc regproc, feature pgtle.pg_tle_features)
returns boolean language sql as $$
  with d as (delete from pgtle.feature_info f
              where f.feature = unregister_feature_if_exists.feature and f.obj_identity = proc::regprocedure::text
             returning 1)
  select exists (select 1 from d)
$$;
