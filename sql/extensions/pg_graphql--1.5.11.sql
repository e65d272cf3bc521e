-- rlskit stand-in for pg_graphql: the schema and the entry point, so migrations and grants
-- that name them apply. Queries are not executed: resolve() answers with an error.

create function graphql.resolve(query text, variables jsonb default '{}', "operationName" text default null,
                                extensions jsonb default null)
returns jsonb language sql stable as $$
  select '{"errors": [{"message": "rlskit stand-in: pg_graphql queries are not executed"}]}'::jsonb
$$;

create function graphql.comment_directive(comment_ text) returns jsonb
language sql immutable as $$
  select case when comment_ like '@graphql(%)' then pg_catalog.substr(comment_, 10, pg_catalog.length(comment_) - 10)::jsonb end
$$;

grant usage on schema graphql to public;
