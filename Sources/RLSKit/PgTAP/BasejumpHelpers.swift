/// The helpers as basejump-supabase_test_helpers 0.0.6 behaves, written anew: users are
/// inserted by the calling role, impersonation sets the role and the claims basejump sets
/// (no `role` key), API keys clear the claims, and `rls_enabled` counts every relation with
/// a row type (views too), as the original does. Its quirks are kept, since suites see them:
/// the descriptions lack spaces ("All tables in thepublic schema …"), `test_overrides.now()`
/// is volatile, and functions created later in `tests` are executable by the API roles.
enum BasejumpHelpers {
    typealias Definition = SupabaseTestHelpers.Definition

    static let definitions: [Definition] = [
        Definition(
            name: "create_supabase_user",
            sql: """
                create or replace function tests.create_supabase_user(identifier text, email text default null,
                                                                        phone text default null, metadata jsonb default null)
                returns uuid
                language plpgsql security definer
                set search_path = auth, pg_temp
                as $$
                declare
                  uid uuid := extensions.uuid_generate_v4();
                begin
                  insert into auth.users (id, email, phone, raw_user_meta_data, raw_app_meta_data, created_at, updated_at)
                  values (uid, coalesce(email, concat(uid, '@test.com')), phone,
                          jsonb_build_object('test_identifier', identifier) || coalesce(metadata, '{}'::jsonb), '{}'::jsonb,
                          now(), now());
                  return uid;
                end
                $$
                """),
        Definition(
            name: "get_supabase_user",
            sql: """
                create or replace function tests.get_supabase_user(identifier text)
                returns json
                language plpgsql security definer
                set search_path = auth, pg_temp
                as $$
                declare
                  u json;
                begin
                  select json_build_object('id', id, 'email', email, 'phone', phone,
                                           'raw_user_meta_data', raw_user_meta_data, 'raw_app_meta_data', raw_app_meta_data)
                    into u from auth.users where raw_user_meta_data ->> 'test_identifier' = identifier limit 1;
                  if u is null or u -> 'id' is null then
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
                language plpgsql security definer
                set search_path = auth, pg_temp
                as $$
                declare
                  uid uuid;
                begin
                  select id into uid from auth.users where raw_user_meta_data ->> 'test_identifier' = identifier limit 1;
                  if uid is null then
                    raise exception 'User with identifier % not found', identifier;
                  end if;
                  return uid;
                end
                $$
                """),
        Definition(
            name: "authenticate_as",
            sql: """
                create or replace function tests.authenticate_as(identifier text)
                returns void
                language plpgsql
                as $$
                declare
                  u json;
                begin
                  u := tests.get_supabase_user(identifier);
                  perform set_config('role', 'authenticated', true);
                  perform set_config('request.jwt.claims', json_build_object(
                    'sub', u ->> 'id', 'email', u ->> 'email', 'phone', u ->> 'phone',
                    'user_metadata', u -> 'raw_user_meta_data', 'app_metadata', u -> 'raw_app_meta_data')::text, true);
                end
                $$
                """),
        Definition(
            name: "authenticate_as_service_role",
            sql: """
                create or replace function tests.authenticate_as_service_role()
                returns void
                language plpgsql
                as $$
                begin
                  perform set_config('role', 'service_role', true);
                  perform set_config('request.jwt.claims', null, true);
                end
                $$
                """),
        Definition(
            name: "clear_authentication",
            sql: """
                create or replace function tests.clear_authentication()
                returns void
                language plpgsql
                as $$
                begin
                  perform set_config('role', 'anon', true);
                  perform set_config('request.jwt.claims', null, true);
                end
                $$
                """),
        Definition(
            name: "rls_enabled",
            sql: """
                create or replace function tests.rls_enabled(testing_schema text)
                returns text
                language sql
                as $$
                  select is(
                    (select count(*)::integer from pg_class c
                       join pg_namespace n on n.oid = c.relnamespace and n.nspname = testing_schema
                       join pg_type t on t.oid = c.reltype
                      where not c.relrowsecurity),
                    0,
                    'All tables in the' || testing_schema || ' schema should have row level security enabled')
                $$;

                create or replace function tests.rls_enabled(testing_schema text, testing_table text)
                returns text
                language sql
                as $$
                  select is(
                    (select count(*)::integer from pg_class c
                       join pg_namespace n on n.oid = c.relnamespace and n.nspname = testing_schema and c.relname = testing_table
                       join pg_type t on t.oid = c.reltype
                      where c.relrowsecurity),
                    1,
                    testing_table || 'table in the' || testing_schema || ' schema should have row level security enabled')
                $$
                """),
        Definition(name: "now", sql: TimeHelpers.now),
        Definition(name: "freeze_time", sql: TimeHelpers.freeze),
        Definition(name: "unfreeze_time", sql: TimeHelpers.unfreeze),
    ]
}

/// freeze_time as basejump's: `test_overrides.now()` ahead of pg_catalog on the search path.
enum TimeHelpers {
    static let now = """
        create or replace function test_overrides.now()
        returns timestamptz
        language plpgsql
        as $$
        begin
          if nullif(current_setting('tests.frozen_time'), '') is not null then
            return current_setting('tests.frozen_time')::timestamptz;
          end if;
          return pg_catalog.now();
        end
        $$
        """

    static let freeze = """
        create or replace function tests.freeze_time(frozen_time timestamptz)
        returns void
        language plpgsql
        as $$
        begin
          if current_setting('search_path') not like 'test_overrides,%' then
            perform set_config('tests.original_search_path', current_setting('search_path'), true);
            perform set_config('search_path',
              'test_overrides,' || current_setting('tests.original_search_path') || ',pg_catalog', true);
          end if;
          perform set_config('tests.frozen_time', frozen_time::text, true);
          -- Outlives a rollback, as the setting's existence does in a psql session; a run's
          -- session drops it where each file starts.
          perform pg_catalog.pg_try_advisory_lock(\(froze), pg_catalog.pg_backend_pid());
        end
        $$
        """

    /// The advisory lock key (with the backend's pid) that says this file's session froze time.
    static let froze = 1_952_870_010

    static let unfreeze = """
        create or replace function tests.unfreeze_time()
        returns void
        language plpgsql
        as $$
        begin
          perform set_config('tests.frozen_time', null, true);
          -- basejump reads tests.original_search_path, which a session gets from freeze_time
          -- only: without a freeze in this file's session, that read fails.
          if coalesce(current_setting('tests.original_search_path', true), '') = ''
             and not exists (select from pg_catalog.pg_locks where locktype = 'advisory'
                              and pid = pg_catalog.pg_backend_pid() and classid = \(froze)
                              and objid = pg_catalog.pg_backend_pid()::oid and objsubid = 2) then
            raise exception using errcode = '42704',
              message = 'unrecognized configuration parameter "tests.original_search_path"';
          end if;
          perform set_config('search_path', current_setting('tests.original_search_path'), true);
        end
        $$
        """
}
