-- rlskit stand-in for pgjwt: the same functions, written here. hmac() comes from pgcrypto,
-- wherever it is installed, so the bodies name its schema (found when this runs).

create function @extschema@.url_encode(data bytea) returns text
language sql immutable strict as $$
  select pg_catalog.translate(pg_catalog.encode(data, 'base64'), E'+/=\n', '-_')
$$;

create function @extschema@.url_decode(data text) returns bytea
language sql immutable strict as $$
  select pg_catalog.decode(t || pg_catalog.repeat('=', (4 - pg_catalog.length(t) % 4) % 4), 'base64')
  from pg_catalog.translate(data, '-_', '+/') as t
$$;

create function @extschema@.try_cast_double(inp text) returns double precision
language plpgsql immutable as $$
begin
  return inp::double precision;
exception when others then
  return null;
end
$$;

do $do$
declare
  crypto text := (select n.nspname from pg_catalog.pg_extension e
                  join pg_catalog.pg_namespace n on n.oid = e.extnamespace where e.extname = 'pgcrypto');
begin
  execute pg_catalog.format($f$
    create function @extschema@.algorithm_sign(signables text, secret text, algorithm text) returns text
    language sql immutable as $b$
      select @extschema@.url_encode(%I.hmac(signables, secret,
        case algorithm when 'HS256' then 'sha256' when 'HS384' then 'sha384' when 'HS512' then 'sha512' else '' end))
    $b$
  $f$, crypto);
end
$do$;

create function @extschema@.sign(payload json, secret text, algorithm text default 'HS256') returns text
language sql immutable as $$
  select s || '.' || @extschema@.algorithm_sign(s, secret, algorithm)
  from (select @extschema@.url_encode(pg_catalog.convert_to('{"alg":"' || algorithm || '","typ":"JWT"}', 'utf8'))
               || '.' || @extschema@.url_encode(pg_catalog.convert_to(payload::text, 'utf8')) as s) as t
$$;

create function @extschema@.verify(token text, secret text, algorithm text default 'HS256')
returns table (header json, payload json, valid boolean)
language sql immutable as $$
  select pg_catalog.convert_from(@extschema@.url_decode(r[1]), 'utf8')::json,
         pg_catalog.convert_from(@extschema@.url_decode(r[2]), 'utf8')::json,
         r[3] = @extschema@.algorithm_sign(r[1] || '.' || r[2], secret, algorithm)
           and pg_catalog.tstzrange(
                 pg_catalog.to_timestamp(@extschema@.try_cast_double(pg_catalog.convert_from(@extschema@.url_decode(r[2]), 'utf8')::json ->> 'nbf')),
                 pg_catalog.to_timestamp(@extschema@.try_cast_double(pg_catalog.convert_from(@extschema@.url_decode(r[2]), 'utf8')::json ->> 'exp'))
               ) @> pg_catalog.now()
  from pg_catalog.regexp_split_to_array(token, '\.') as r
$$;
