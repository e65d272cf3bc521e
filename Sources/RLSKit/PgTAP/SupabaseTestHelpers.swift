/// The supabase-test-helpers API (basejump): same names, arguments and error messages.
///
/// For a run, each file gets a session-local copy (`pg_temp.tests_*`, calls to `tests.*`
/// rewritten to it) created inside its transaction: nothing persists, and parallel files do
/// not wait on each other's uncommitted `tests` schema. `installSQL` is the ordinary form,
/// for other tools (pg_prove) or a database that keeps them.
///
/// Differences from the original, on purpose: the claims always carry `role` (and `aud`,
/// `iss`, `iat`, `exp`, `is_anonymous`) as the data API's do, so `auth.role()` works;
/// `clear_authentication()` and `authenticate_as_service_role()` set the claims the anon and
/// service keys carry instead of none; users sign up as GoTrue's role (`supabase_auth_admin`)
/// where it exists, so sign-up triggers need the rights they need on Supabase; and
/// `rls_enabled(schema)` counts tables only (the original also counted views, which cannot
/// have RLS).
@_spi(CLI) public enum SupabaseTestHelpers {
    /// An installed copy is used as it is; this function marks one.
    public static let marker = "tests.authenticate_as(text)"

    /// The helpers callable as `tests.*`.
    public static let names = [
        "create_supabase_user", "get_supabase_uid", "get_supabase_user", "authenticate_as_service_role",
        "authenticate_as", "clear_authentication", "rls_enabled", "freeze_time", "unfreeze_time",
    ]

    /// Creates schema `tests` with every helper, committed where it runs.
    public static var installSQL: String {
        "create schema if not exists tests;\ngrant usage on schema tests to public;\n\n"
            + body.replacingOccurrences(of: "{T}", with: "tests.") + "\n\n"
            + freeze.replacingOccurrences(of: "{T}", with: "tests.") + "\n"
    }

    /// The session-local copy for one file; freeze_time needs a real schema, so it comes only when used.
    static func sessionSQL(freezeTime: Bool) -> String {
        body.replacingOccurrences(of: "{T}", with: sessionPrefix)
            + (freezeTime ? ";\n" + freeze.replacingOccurrences(of: "{T}", with: sessionPrefix) : "")
    }

    static let sessionPrefix = "pg_temp.tests_"

    static let body = """
        -- Sign-up as GoTrue performs it: one row in auth.users, so auth triggers fire.
        create or replace function {T}create_supabase_user(identifier text, email text default null,
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
        $$;

        create or replace function {T}get_supabase_user(identifier text)
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
        $$;

        create or replace function {T}get_supabase_uid(identifier text)
        returns uuid
        language sql stable security definer
        set search_path = pg_catalog, pg_temp
        as $$ select ({T}get_supabase_user(identifier) ->> 'id')::uuid $$;

        -- Legacy per-claim settings are read before the JSON claims by auth.uid() and friends,
        -- so a stale one would override the caller we set.
        create or replace function {T}_clear_legacy_claims()
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
        $$;

        -- As the data API does for a user's JWT: role switched, claims carry role, sub, aud, …
        create or replace function {T}authenticate_as(identifier text)
        returns void
        language plpgsql
        as $$
        declare
          u json := {T}get_supabase_user(identifier);
          t bigint := extract(epoch from pg_catalog.now())::bigint;
        begin
          perform {T}_clear_legacy_claims();
          perform set_config('role', 'authenticated', true);
          perform set_config('request.jwt.claims', json_build_object(
            'sub', u ->> 'id', 'role', 'authenticated', 'aud', 'authenticated',
            'email', u ->> 'email', 'phone', coalesce(u ->> 'phone', ''),
            'app_metadata', u -> 'raw_app_meta_data', 'user_metadata', u -> 'raw_user_meta_data',
            'is_anonymous', false, 'aal', 'aal1', 'iss', 'supabase', 'iat', t, 'exp', t + 3600)::text, true);
        end
        $$;

        -- As the data API does for an API key (anon or service_role): that role, no sub.
        create or replace function {T}_act_as_key(key_role text)
        returns void
        language plpgsql
        as $$
        declare
          t bigint := extract(epoch from pg_catalog.now())::bigint;
        begin
          perform {T}_clear_legacy_claims();
          perform set_config('role', key_role, true);
          perform set_config('request.jwt.claims',
            json_build_object('role', key_role, 'iss', 'supabase', 'iat', t, 'exp', t + 3600)::text, true);
        end
        $$;

        create or replace function {T}authenticate_as_service_role()
        returns void
        language sql
        as $$ select {T}_act_as_key('service_role') $$;

        create or replace function {T}clear_authentication()
        returns void
        language sql
        as $$ select {T}_act_as_key('anon') $$;

        -- pgTAP may live in any schema (Supabase puts it in "extensions").
        create or replace function {T}_pgtap_is(have integer, want integer, description text)
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
        $$;

        -- Tables only: views cannot have RLS.
        create or replace function {T}rls_enabled(testing_schema text)
        returns text
        language sql
        as $$
          select {T}_pgtap_is(
            (select count(*)::integer from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = testing_schema and c.relkind in ('r', 'p') and not c.relrowsecurity),
            0,
            'All tables in the ' || testing_schema || ' schema should have row level security enabled')
        $$;

        create or replace function {T}rls_enabled(testing_schema text, testing_table text)
        returns text
        language sql
        as $$
          select {T}_pgtap_is(
            (select count(*)::integer from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = testing_schema and c.relname = testing_table and c.relrowsecurity),
            1,
            testing_table || ' table in the ' || testing_schema || ' schema should have row level security enabled')
        $$;

        -- Sign-up runs as the auth server's role, so a sign-up trigger needs the same rights it
        -- needs on Supabase. Only where that role exists and we may hand the function to it.
        do $$
        begin
          if exists (select 1 from pg_roles where rolname = 'supabase_auth_admin')
             and (exists (select 1 from pg_roles where rolname = current_user and rolsuper)
                  or pg_has_role('supabase_auth_admin', 'MEMBER')) then
            alter function {T}create_supabase_user(text, text, text, jsonb) owner to supabase_auth_admin;
            alter function {T}get_supabase_user(text) owner to supabase_auth_admin;
          end if;
        end
        $$;
        """

    static let freeze = """
        create schema if not exists test_overrides;
        grant usage on schema test_overrides to public;

        -- now() resolves here first once freeze_time() puts this schema ahead of pg_catalog.
        create or replace function test_overrides.now()
        returns timestamptz
        language plpgsql stable
        as $$
        begin
          return coalesce(nullif(current_setting('tests.frozen_time', true), '')::timestamptz, pg_catalog.now());
        end
        $$;

        create or replace function {T}freeze_time(frozen_time timestamptz)
        returns void
        language plpgsql
        as $$
        begin
          if current_setting('search_path') not like 'test_overrides,%' then
            perform set_config('tests.original_search_path', current_setting('search_path'), true);
            perform set_config('search_path', 'test_overrides,' || current_setting('search_path') || ',pg_catalog', true);
          end if;
          perform set_config('tests.frozen_time', frozen_time::text, true);
        end
        $$;

        create or replace function {T}unfreeze_time()
        returns void
        language plpgsql
        as $$
        begin
          perform set_config('tests.frozen_time', '', true);
          if nullif(current_setting('tests.original_search_path', true), '') is not null then
            perform set_config('search_path', current_setting('tests.original_search_path'), true);
          end if;
        end
        $$;
        """
}
