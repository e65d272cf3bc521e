-- rlskit stand-in for pgvector. The type keeps its text form ('[1,2,3]') through core's
-- text I/O, and vector(n) uses varchar's modifier functions; the cast to vector(n) checks
-- the dimension. Distances are computed for real (in SQL, slowly). hnsw and ivfflat are
-- core's hash index method under another name: indexes build and stay correct, but they
-- never speed up a nearest-neighbour search, and index options (lists, m,
-- ef_construction) are refused.

create type vector;
create function vector_in(cstring, oid, integer) returns vector language internal immutable strict parallel safe as 'textin';
create function vector_out(vector) returns cstring language internal immutable strict parallel safe as 'textout';
create function vector_recv(internal, oid, integer) returns vector language internal immutable strict parallel safe as 'textrecv';
create function vector_send(vector) returns bytea language internal immutable strict parallel safe as 'textsend';
create function vector_typmod_in(cstring[]) returns integer language internal immutable strict parallel safe as 'varchartypmodin';
create function vector_typmod_out(integer) returns cstring language internal immutable strict parallel safe as 'varchartypmodout';
create type vector (
  input = vector_in, output = vector_out, receive = vector_recv, send = vector_send,
  typmod_in = vector_typmod_in, typmod_out = vector_typmod_out,
  internallength = variable, storage = extended, alignment = int4
);

create function rlskit_vector_elements(v vector) returns double precision[]
language plpgsql immutable strict parallel safe as $$
declare
  t text := pg_catalog.btrim(v::text);
begin
  if t !~ '^\[.*\]$' then
    raise exception 'invalid input syntax for type vector: "%"', t using errcode = '22P02';
  end if;
  return ('{' || pg_catalog.substr(t, 2, pg_catalog.length(t) - 2) || '}')::double precision[];
end
$$;

create function rlskit_vector_pairs(a vector, b vector) returns table (x double precision, y double precision)
language plpgsql immutable strict parallel safe as $$
declare
  ea double precision[] := @extschema@.rlskit_vector_elements(a);
  eb double precision[] := @extschema@.rlskit_vector_elements(b);
begin
  if pg_catalog.cardinality(ea) <> pg_catalog.cardinality(eb) then
    raise exception 'different vector dimensions % and %', pg_catalog.cardinality(ea), pg_catalog.cardinality(eb)
      using errcode = '22000';
  end if;
  return query select * from unnest(ea, eb);
end
$$;

create function rlskit_vector_from(e double precision[]) returns vector
language sql immutable strict parallel safe as $$
  select ('[' || pg_catalog.array_to_string(e, ',') || ']')::text::@extschema@.vector
$$;

-- The length coercion behind vector(n): the modifier is n plus varchar's 4-byte header.
create function vector(v vector, typmod integer, explicit boolean) returns vector
language plpgsql immutable strict parallel safe as $$
declare
  n integer := pg_catalog.cardinality(@extschema@.rlskit_vector_elements(v));
begin
  if typmod > 4 and n <> typmod - 4 then
    raise exception 'expected % dimensions, not %', typmod - 4, n using errcode = '22000';
  end if;
  return v;
end
$$;
create cast (vector as vector) with function vector(vector, integer, boolean) as implicit;

create function array_to_vector(real[], integer, boolean) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.vector(@extschema@.rlskit_vector_from($1::double precision[]), $2, $3) $$;
create function array_to_vector(double precision[], integer, boolean) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.vector(@extschema@.rlskit_vector_from($1), $2, $3) $$;
create function array_to_vector(integer[], integer, boolean) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.vector(@extschema@.rlskit_vector_from($1::double precision[]), $2, $3) $$;
create function array_to_vector(numeric[], integer, boolean) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.vector(@extschema@.rlskit_vector_from($1::double precision[]), $2, $3) $$;
create function vector_to_float4(vector, integer, boolean) returns real[] language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_elements($1)::real[] $$;
create cast (real[] as vector) with function array_to_vector(real[], integer, boolean) as assignment;
create cast (double precision[] as vector) with function array_to_vector(double precision[], integer, boolean) as assignment;
create cast (integer[] as vector) with function array_to_vector(integer[], integer, boolean) as assignment;
create cast (numeric[] as vector) with function array_to_vector(numeric[], integer, boolean) as assignment;
create cast (vector as real[]) with function vector_to_float4(vector, integer, boolean) as implicit;

create function l2_distance(vector, vector) returns double precision language sql immutable strict parallel safe as
  $$ select pg_catalog.sqrt(sum((x - y) * (x - y))) from @extschema@.rlskit_vector_pairs($1, $2) $$;
create function inner_product(vector, vector) returns double precision language sql immutable strict parallel safe as
  $$ select sum(x * y) from @extschema@.rlskit_vector_pairs($1, $2) $$;
create function vector_negative_inner_product(vector, vector) returns double precision language sql immutable strict parallel safe as
  $$ select -sum(x * y) from @extschema@.rlskit_vector_pairs($1, $2) $$;
create function cosine_distance(vector, vector) returns double precision language sql immutable strict parallel safe as
  $$ select 1 - sum(x * y) / nullif(pg_catalog.sqrt(sum(x * x)) * pg_catalog.sqrt(sum(y * y)), 0)
     from @extschema@.rlskit_vector_pairs($1, $2) $$;
create function l1_distance(vector, vector) returns double precision language sql immutable strict parallel safe as
  $$ select sum(abs(x - y)) from @extschema@.rlskit_vector_pairs($1, $2) $$;
create function vector_dims(vector) returns integer language sql immutable strict parallel safe as
  $$ select pg_catalog.cardinality(@extschema@.rlskit_vector_elements($1)) $$;
create function vector_norm(vector) returns double precision language sql immutable strict parallel safe as
  $$ select pg_catalog.sqrt(sum(x * x)) from unnest(@extschema@.rlskit_vector_elements($1)) as x $$;
create function l2_normalize(vector) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_from(array(select x / nullif(@extschema@.vector_norm($1), 0)
                                                 from unnest(@extschema@.rlskit_vector_elements($1)) as x)) $$;
create function vector_add(vector, vector) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_from(array(select x + y from @extschema@.rlskit_vector_pairs($1, $2))) $$;
create function vector_sub(vector, vector) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_from(array(select x - y from @extschema@.rlskit_vector_pairs($1, $2))) $$;
create function vector_mul(vector, vector) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_from(array(select x * y from @extschema@.rlskit_vector_pairs($1, $2))) $$;
create function vector_cmp(vector, vector) returns integer language sql immutable strict parallel safe as
  $$ select case when a < b then -1 when a > b then 1 else 0 end
     from (select @extschema@.rlskit_vector_elements($1) as a, @extschema@.rlskit_vector_elements($2) as b) as t $$;
create function vector_eq(vector, vector) returns boolean language sql immutable strict parallel safe as $$ select @extschema@.vector_cmp($1, $2) = 0 $$;
create function vector_ne(vector, vector) returns boolean language sql immutable strict parallel safe as $$ select @extschema@.vector_cmp($1, $2) <> 0 $$;
create function vector_lt(vector, vector) returns boolean language sql immutable strict parallel safe as $$ select @extschema@.vector_cmp($1, $2) < 0 $$;
create function vector_le(vector, vector) returns boolean language sql immutable strict parallel safe as $$ select @extschema@.vector_cmp($1, $2) <= 0 $$;
create function vector_gt(vector, vector) returns boolean language sql immutable strict parallel safe as $$ select @extschema@.vector_cmp($1, $2) > 0 $$;
create function vector_ge(vector, vector) returns boolean language sql immutable strict parallel safe as $$ select @extschema@.vector_cmp($1, $2) >= 0 $$;
-- Hashes the stored text: only the index methods below use it.
create function rlskit_vector_hash(vector) returns integer language internal immutable strict parallel safe as 'hashvarlena';

create operator <-> (leftarg = vector, rightarg = vector, function = l2_distance, commutator = '<->');
create operator <#> (leftarg = vector, rightarg = vector, function = vector_negative_inner_product, commutator = '<#>');
create operator <=> (leftarg = vector, rightarg = vector, function = cosine_distance, commutator = '<=>');
create operator <+> (leftarg = vector, rightarg = vector, function = l1_distance, commutator = '<+>');
create operator + (leftarg = vector, rightarg = vector, function = vector_add, commutator = +);
create operator - (leftarg = vector, rightarg = vector, function = vector_sub);
create operator * (leftarg = vector, rightarg = vector, function = vector_mul, commutator = *);
create operator = (leftarg = vector, rightarg = vector, function = vector_eq, commutator = =, negator = <>,
                   restrict = eqsel, join = eqjoinsel);
create operator <> (leftarg = vector, rightarg = vector, function = vector_ne, commutator = <>, negator = =,
                    restrict = neqsel, join = neqjoinsel);
create operator < (leftarg = vector, rightarg = vector, function = vector_lt, commutator = >, negator = >=,
                   restrict = scalarltsel, join = scalarltjoinsel);
create operator <= (leftarg = vector, rightarg = vector, function = vector_le, commutator = >=, negator = >,
                    restrict = scalarlesel, join = scalarlejoinsel);
create operator > (leftarg = vector, rightarg = vector, function = vector_gt, commutator = <, negator = <=,
                   restrict = scalargtsel, join = scalargtjoinsel);
create operator >= (leftarg = vector, rightarg = vector, function = vector_ge, commutator = <=, negator = <,
                    restrict = scalargesel, join = scalargejoinsel);

create function rlskit_vector_accum(state double precision[], v vector) returns double precision[]
language plpgsql immutable parallel safe as $$
declare
  e double precision[] := @extschema@.rlskit_vector_elements(v);
  n integer;
begin
  if v is null then return state; end if;
  if state is null then return e || 1::double precision; end if;
  n := pg_catalog.cardinality(state) - 1;
  if n <> pg_catalog.cardinality(e) then
    raise exception 'expected % dimensions, not %', n, pg_catalog.cardinality(e) using errcode = '22000';
  end if;
  return array(select s + x from unnest(state[1:n], e) as t(s, x)) || (state[n + 1] + 1);
end
$$;
create function rlskit_vector_avg(state double precision[]) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_from(array(select s / $1[pg_catalog.cardinality($1)]
                                                 from unnest($1[1:pg_catalog.cardinality($1) - 1]) as s)) $$;
create function rlskit_vector_sum(state double precision[]) returns vector language sql immutable strict parallel safe as
  $$ select @extschema@.rlskit_vector_from($1[1:pg_catalog.cardinality($1) - 1]) $$;
create aggregate avg(vector) (sfunc = rlskit_vector_accum, stype = double precision[], finalfunc = rlskit_vector_avg);
create aggregate sum(vector) (sfunc = rlskit_vector_accum, stype = double precision[], finalfunc = rlskit_vector_sum);

create operator class vector_ops default for type vector using btree as
  operator 1 <, operator 2 <=, operator 3 =, operator 4 >=, operator 5 >, function 1 vector_cmp(vector, vector);

create access method hnsw type index handler pg_catalog.hashhandler;
create access method ivfflat type index handler pg_catalog.hashhandler;
create operator class vector_l2_ops default for type vector using hnsw as operator 1 =, function 1 rlskit_vector_hash(vector);
create operator class vector_ip_ops for type vector using hnsw as operator 1 =, function 1 rlskit_vector_hash(vector);
create operator class vector_cosine_ops for type vector using hnsw as operator 1 =, function 1 rlskit_vector_hash(vector);
create operator class vector_l1_ops for type vector using hnsw as operator 1 =, function 1 rlskit_vector_hash(vector);
create operator class vector_l2_ops default for type vector using ivfflat as operator 1 =, function 1 rlskit_vector_hash(vector);
create operator class vector_ip_ops for type vector using ivfflat as operator 1 =, function 1 rlskit_vector_hash(vector);
create operator class vector_cosine_ops for type vector using ivfflat as operator 1 =, function 1 rlskit_vector_hash(vector);
