-- rlskit stand-in for pg_jsonschema. Validates the common JSON Schema keywords: type, enum,
-- const, properties, required, additionalProperties, items, min/maxItems, uniqueItems,
-- min/maxLength, pattern, minimum, maximum, exclusiveMinimum/Maximum, multipleOf, allOf,
-- anyOf, oneOf, not. Other keywords ($ref, format, if/then/else, …) are accepted unchecked.

create function rlskit_jsonschema_errors(s jsonb, v jsonb, path text default '') returns text[]
language plpgsql immutable as $$
declare
  errs text[] := '{}';
  t text := pg_catalog.jsonb_typeof(v);
  types jsonb;
  k text;
  sub jsonb;
  n integer;
begin
  if s is null or s = 'true'::jsonb or s = '{}'::jsonb then return errs; end if;
  if s = 'false'::jsonb then return array[path || ': no value is allowed']; end if;
  if s ? 'type' then
    types := case when pg_catalog.jsonb_typeof(s->'type') = 'array' then s->'type' else pg_catalog.jsonb_build_array(s->'type') end;
    if not (types ? t or (t = 'number' and types ? 'integer' and v::text::numeric = pg_catalog.trunc(v::text::numeric))) then
      errs := errs || (path || ': ' || v::text || ' is not of type ' || (s->'type')::text);
    end if;
  end if;
  if s ? 'enum' and not (s->'enum') @> pg_catalog.jsonb_build_array(v) then
    errs := errs || (path || ': ' || v::text || ' is not one of ' || (s->'enum')::text);
  end if;
  if s ? 'const' and s->'const' <> v then errs := errs || (path || ': ' || v::text || ' is not ' || (s->'const')::text); end if;
  if t = 'object' then
    for k in select pg_catalog.jsonb_array_elements_text(coalesce(s->'required', '[]')) loop
      if not v ? k then errs := errs || (path || ': "' || k || '" is a required property'); end if;
    end loop;
    for k, sub in select * from pg_catalog.jsonb_each(coalesce(s->'properties', '{}')) loop
      if v ? k then errs := errs || @extschema@.rlskit_jsonschema_errors(sub, v->k, path || '/' || k); end if;
    end loop;
    if s ? 'additionalProperties' then
      for k in select pg_catalog.jsonb_object_keys(v) loop
        if not coalesce(s->'properties', '{}') ? k then
          errs := errs || @extschema@.rlskit_jsonschema_errors(s->'additionalProperties', v->k, path || '/' || k);
        end if;
      end loop;
    end if;
  elsif t = 'array' then
    n := pg_catalog.jsonb_array_length(v);
    if pg_catalog.jsonb_typeof(s->'items') = 'object' or pg_catalog.jsonb_typeof(s->'items') = 'boolean' then
      for i in 0 .. n - 1 loop
        errs := errs || @extschema@.rlskit_jsonschema_errors(s->'items', v->i, path || '/' || i);
      end loop;
    end if;
    if (s->>'minItems')::integer > n then errs := errs || (path || ': fewer than ' || (s->>'minItems') || ' items'); end if;
    if (s->>'maxItems')::integer < n then errs := errs || (path || ': more than ' || (s->>'maxItems') || ' items'); end if;
    if (s->'uniqueItems') = 'true'::jsonb and (select count(distinct e) from pg_catalog.jsonb_array_elements(v) as e) < n then
      errs := errs || (path || ': items are not unique');
    end if;
  elsif t = 'string' then
    if (s->>'minLength')::integer > pg_catalog.length(v #>> '{}') then errs := errs || (path || ': shorter than ' || (s->>'minLength')); end if;
    if (s->>'maxLength')::integer < pg_catalog.length(v #>> '{}') then errs := errs || (path || ': longer than ' || (s->>'maxLength')); end if;
    if s ? 'pattern' and (v #>> '{}') !~ (s->>'pattern') then errs := errs || (path || ': does not match ' || (s->>'pattern')); end if;
  elsif t = 'number' then
    if (s->>'minimum')::numeric > v::text::numeric then errs := errs || (path || ': less than ' || (s->>'minimum')); end if;
    if (s->>'maximum')::numeric < v::text::numeric then errs := errs || (path || ': greater than ' || (s->>'maximum')); end if;
    if (s->>'exclusiveMinimum')::numeric >= v::text::numeric then errs := errs || (path || ': not greater than ' || (s->>'exclusiveMinimum')); end if;
    if (s->>'exclusiveMaximum')::numeric <= v::text::numeric then errs := errs || (path || ': not less than ' || (s->>'exclusiveMaximum')); end if;
    if s ? 'multipleOf' and v::text::numeric % (s->>'multipleOf')::numeric <> 0 then errs := errs || (path || ': not a multiple of ' || (s->>'multipleOf')); end if;
  end if;
  for sub in select pg_catalog.jsonb_array_elements(coalesce(s->'allOf', '[]')) loop
    errs := errs || @extschema@.rlskit_jsonschema_errors(sub, v, path);
  end loop;
  if s ? 'anyOf' and not exists (select 1 from pg_catalog.jsonb_array_elements(s->'anyOf') as e
                                 where pg_catalog.cardinality(@extschema@.rlskit_jsonschema_errors(e, v, path)) = 0) then
    errs := errs || (path || ': matches none of anyOf');
  end if;
  if s ? 'oneOf' and (select count(*) from pg_catalog.jsonb_array_elements(s->'oneOf') as e
                      where pg_catalog.cardinality(@extschema@.rlskit_jsonschema_errors(e, v, path)) = 0) <> 1 then
    errs := errs || (path || ': does not match exactly one of oneOf');
  end if;
  if s ? 'not' and pg_catalog.cardinality(@extschema@.rlskit_jsonschema_errors(s->'not', v, path)) = 0 then
    errs := errs || (path || ': matches the schema in not');
  end if;
  return errs;
end
$$;

create function jsonb_matches_schema(schema json, instance jsonb) returns boolean
language sql immutable strict parallel safe as
  $$ select pg_catalog.cardinality(@extschema@.rlskit_jsonschema_errors(schema::jsonb, instance)) = 0 $$;
create function json_matches_schema(schema json, instance json) returns boolean
language sql immutable strict parallel safe as
  $$ select pg_catalog.cardinality(@extschema@.rlskit_jsonschema_errors(schema::jsonb, instance::jsonb)) = 0 $$;
create function jsonschema_validation_errors(schema json, instance json) returns text[]
language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_jsonschema_errors(schema::jsonb, instance::jsonb) $$;
create function jsonschema_is_valid(schema json) returns boolean
language sql immutable strict parallel safe as
  $$ select pg_catalog.jsonb_typeof(schema::jsonb) in ('object', 'boolean') $$;
