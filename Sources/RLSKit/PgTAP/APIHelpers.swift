/// The helpers as the data API impersonates (`--helpers api`): the claims always carry `role`
/// (and `aud`, `iss`, `iat`, `exp`, `is_anonymous`), so `auth.role()` works;
/// `clear_authentication()` and `authenticate_as_service_role()` set the claims the anon and
/// service keys carry; users sign up as GoTrue's role (`supabase_auth_admin`) where it exists,
/// so sign-up triggers need the rights they need on Supabase; `rls_enabled(schema)` counts
/// tables only.
enum APIHelpers {
    typealias Definition = SupabaseTestHelpers.Definition

    static let definitions: [Definition] = [
        Definition(
            name: "create_supabase_user",
            sql: """
                -- Sign-up as GoTrue performs it: one row in auth.users, so auth triggers fire.
                create or replace function tests.create_supabase_user(identifier text, email text default null,
                                                                      phone text default null, metadata jsonb default null)
                returns uuid
                language plpgsql security definer
                set search_path = pg_catalog, pg_temp
                as $$
                declare
                  uid uuid := gen_random_uuid();
                begin
                  insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password, email_confirmed_at,
                                          raw_app_meta_data, raw_user_meta_data, created_at, updated_at, last_sign_in_at,
                                          confirmation_token, recovery_token, email_change_token_new, email_change, is_anonymous)
                  values ('00000000-0000-0000-0000-000000000000', uid, 'authenticated', 'authenticated',
                          lower(coalesce(email, uid::text || '@test.com')), phone, '', now(),
                          '{"provider": "email", "providers": ["email"]}'::jsonb,
                          jsonb_build_object('test_identifier', identifier) || coalesce(metadata, '{}'::jsonb),
                          now(), now(), now(), '', '', '', '', false);
                  return uid;
                end
                $$
                """),
        Definition(
            name: "get_supabase_user",
            sql: """
                create or replace function tests.get_supabase_user(identifier text)
                returns json
                language plpgsql stable security definer
                set search_path = pg_catalog, pg_temp
                as $$
                declare
                  u json;
                begin
                  select json_build_object('id', id, 'email', email, 'phone', phone,
                                           'raw_user_meta_data', raw_user_meta_data, 'raw_app_meta_data', raw_app_meta_data)
                    into u
                    from auth.users
                   where raw_user_meta_data ->> 'test_identifier' = identifier
                   limit 1;
                  if u is null then
                    raise exception 'User with identifier % not found', identifier;
                  end if;
                  return u;
                end
                $$
                """),
        Definition(
            name: "get_supabase_uid",
            sql: """
                create or replace function tests.get_supabase_uid(identifier text)
                returns uuid
                language sql stable security definer
                set search_path = pg_catalog, pg_temp
                as $$ select (tests.get_supabase_user(identifier) ->> 'id')::uuid $$
                """),
        Definition(
            name: "_clear_legacy_claims",
            sql: """
                -- Legacy per-claim settings are read before the JSON claims by auth.uid() and friends,
                -- so a stale one would override the caller we set.
                create or replace function tests._clear_legacy_claims()
                returns void
                language plpgsql
                as $$
                declare
                  k text;
                begin
                  foreach k in array array['sub', 'role', 'email'] loop
                    if nullif(current_setting('request.jwt.claim.' || k, true), '') is not null then
                      perform set_config('request.jwt.claim.' || k, '', true);
                    end if;
                  end loop;
                end
                $$
                """),
        Definition(
            name: "authenticate_as",
            sql: """
                -- As the data API does for a user's JWT: role switched, claims carry role, sub, aud, …
                create or replace function tests.authenticate_as(identifier text)
                returns void
                language plpgsql
                as $$
                declare
                  u json := tests.get_supabase_user(identifier);
                  t bigint := extract(epoch from pg_catalog.now())::bigint;
                begin
                  perform tests._clear_legacy_claims();
                  perform set_config('role', 'authenticated', true);
                  perform set_config('request.jwt.claims', json_build_object(
                    'sub', u ->> 'id', 'role', 'authenticated', 'aud', 'authenticated',
                    'email', u ->> 'email', 'phone', coalesce(u ->> 'phone', ''),
                    'app_metadata', u -> 'raw_app_meta_data', 'user_metadata', u -> 'raw_user_meta_data',
                    'is_anonymous', false, 'aal', 'aal1', 'iss', 'supabase', 'iat', t, 'exp', t + 3600)::text, true);
                end
                $$
                """),
        Definition(
            name: "_act_as_key",
            sql: """
                -- As the data API does for an API key (anon or service_role): that role, no sub.
                create or replace function tests._act_as_key(key_role text)
                returns void
                language plpgsql
                as $$
                declare
                  t bigint := extract(epoch from pg_catalog.now())::bigint;
                begin
                  perform tests._clear_legacy_claims();
                  perform set_config('role', key_role, true);
                  perform set_config('request.jwt.claims',
                    json_build_object('role', key_role, 'iss', 'supabase', 'iat', t, 'exp', t + 3600)::text, true);
                end
                $$
                """),
        Definition(
            name: "authenticate_as_service_role",
            sql: """
                create or replace function tests.authenticate_as_service_role()
                returns void
                language sql
                as $$ select tests._act_as_key('service_role') $$
                """),
        Definition(
            name: "clear_authentication",
            sql: """
                create or replace function tests.clear_authentication()
                returns void
                language sql
                as $$ select tests._act_as_key('anon') $$
                """),
        Definition(
            name: "_pgtap_is",
            sql: """
                -- pgTAP may live in any schema (Supabase puts it in "extensions").
                create or replace function tests._pgtap_is(have integer, want integer, description text)
                returns text
                language plpgsql
                as $$
                declare
                  s text;
                  r text;
                begin
                  select n.nspname into s from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pgtap';
                  execute format('select %I.is($1, $2, $3)', coalesce(s, 'public')) into r using have, want, description;
                  return r;
                end
                $$
                """),
        Definition(
            name: "rls_enabled",
            sql: """
                -- Tables only: views cannot have RLS.
                create or replace function tests.rls_enabled(testing_schema text)
                returns text
                language sql
                as $$
                  select tests._pgtap_is(
                    (select count(*)::integer from pg_class c join pg_namespace n on n.oid = c.relnamespace
                      where n.nspname = testing_schema and c.relkind in ('r', 'p') and not c.relrowsecurity),
                    0,
                    'All tables in the ' || testing_schema || ' schema should have row level security enabled')
                $$;

                create or replace function tests.rls_enabled(testing_schema text, testing_table text)
                returns text
                language sql
                as $$
                  select tests._pgtap_is(
                    (select count(*)::integer from pg_class c join pg_namespace n on n.oid = c.relnamespace
                      where n.nspname = testing_schema and c.relname = testing_table and c.relrowsecurity),
                    1,
                    testing_table || ' table in the ' || testing_schema || ' schema should have row level security enabled')
                $$
                """),
        Definition(
            name: "create_supabase_user",
            sql: """
                -- Sign-up runs as the auth server's role, so a sign-up trigger needs the same rights it
                -- needs on Supabase. Only where that role exists and we may hand the function to it.
                do $$
                begin
                  if exists (select 1 from pg_roles where rolname = 'supabase_auth_admin')
                     and (exists (select 1 from pg_roles where rolname = current_user and rolsuper)
                          or pg_has_role('supabase_auth_admin', 'MEMBER')) then
                    alter function tests.create_supabase_user(text, text, text, jsonb) owner to supabase_auth_admin;
                    alter function tests.get_supabase_user(text) owner to supabase_auth_admin;
                  end if;
                end
                $$
                """),
        Definition(name: "now", sql: TimeHelpers.now),
        Definition(name: "freeze_time", sql: TimeHelpers.freeze),
        Definition(name: "unfreeze_time", sql: TimeHelpers.unfreeze),
    ]
}
