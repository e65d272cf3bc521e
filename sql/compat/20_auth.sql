-- rlskit compat layer: the part of Supabase Auth's schema that user schemas and
-- policies depend on. Idempotent. Installed only where the real thing is absent;
-- the guard below refuses to touch an auth.users that is not ours.

do $$
begin
  if to_regclass('auth.users') is not null
     and coalesce(obj_description(to_regnamespace('auth')::oid, 'pg_namespace'), '')
         <> 'rlskit stand-in' then
    raise exception 'auth.users exists and is not the rlskit stand-in; refusing to modify it'
      using errcode = '55000';
  end if;
end
$$;

create schema if not exists auth authorization supabase_auth_admin;
alter schema auth owner to supabase_auth_admin;
comment on schema auth is 'rlskit stand-in';

-- Policies call auth.uid() with the caller's rights, so the API roles need USAGE
-- on the schema (as on Supabase); they get nothing on its tables.
grant usage on schema auth to anon, authenticated, service_role;

-- Real column list and order of GoTrue's auth.users. Like the real table, id and
-- the timestamps have no defaults: GoTrue always supplies them.
create table if not exists auth.users (
  instance_id                 uuid,
  id                          uuid not null,
  aud                         varchar(255),
  role                        varchar(255),
  email                       varchar(255),
  encrypted_password          varchar(255),
  email_confirmed_at          timestamptz,
  invited_at                  timestamptz,
  confirmation_token          varchar(255),
  confirmation_sent_at        timestamptz,
  recovery_token              varchar(255),
  recovery_sent_at            timestamptz,
  email_change_token_new      varchar(255),
  email_change                varchar(255),
  email_change_sent_at        timestamptz,
  last_sign_in_at             timestamptz,
  raw_app_meta_data           jsonb,
  raw_user_meta_data          jsonb,
  is_super_admin              boolean,
  created_at                  timestamptz,
  updated_at                  timestamptz,
  phone                       text default null,
  phone_confirmed_at          timestamptz,
  phone_change                text default '',
  phone_change_token          varchar(255) default '',
  phone_change_sent_at        timestamptz,
  confirmed_at                timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current  varchar(255) default '',
  email_change_confirm_status smallint default 0,
  banned_until                timestamptz,
  reauthentication_token      varchar(255) default '',
  reauthentication_sent_at    timestamptz,
  is_sso_user                 boolean not null default false,
  deleted_at                  timestamptz,
  is_anonymous                boolean not null default false,
  constraint users_pkey primary key (id),
  constraint users_phone_key unique (phone),
  constraint users_email_change_confirm_status_check
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2)
);
comment on table auth.users is 'Auth: Stores user login data within a secure schema.';
comment on column auth.users.is_sso_user is
  'Auth: Set this column to true when the account comes from SSO. These accounts can have duplicate emails.';

-- SSO accounts may share an email; everyone else may not.
create unique index if not exists users_email_partial_key on auth.users (email) where (is_sso_user = false);
create index if not exists users_instance_id_idx on auth.users (instance_id);
create index if not exists users_instance_id_email_idx on auth.users (instance_id, lower((email)::text));
create index if not exists users_is_anonymous_idx on auth.users (is_anonymous);
-- Tokens are unique unless blank or a numeric OTP placeholder, as in GoTrue.
create unique index if not exists confirmation_token_idx on auth.users (confirmation_token)
  where ((confirmation_token)::text !~ '^[0-9 ]*$');
create unique index if not exists recovery_token_idx on auth.users (recovery_token)
  where ((recovery_token)::text !~ '^[0-9 ]*$');
create unique index if not exists email_change_token_current_idx on auth.users (email_change_token_current)
  where ((email_change_token_current)::text !~ '^[0-9 ]*$');
create unique index if not exists email_change_token_new_idx on auth.users (email_change_token_new)
  where ((email_change_token_new)::text !~ '^[0-9 ]*$');
create unique index if not exists reauthentication_token_idx on auth.users (reauthentication_token)
  where ((reauthentication_token)::text !~ '^[0-9 ]*$');

alter table auth.users owner to supabase_auth_admin;
alter table auth.users enable row level security;  -- and no policies, as on Supabase

-- Privileges. The API roles get nothing: the data API must never reach auth.users.
-- service_role gets nothing either: Supabase's init scripts grant it only USAGE on
-- the schema, and the service key's Admin API is GoTrue acting as
-- supabase_auth_admin, not a SQL session as service_role. To emulate sign-up or
-- the Admin API faithfully, act as supabase_auth_admin (the owner): then a
-- sign-up trigger that is not SECURITY DEFINER fails here just as it does on
-- Supabase ("Database error saving new user").
revoke all on auth.users from public, anon, authenticated, service_role;

-- JWT accessors. Legacy per-claim settings (still set by the Storage API) are read
-- first, then PostgREST's JSON claims. nullif(..., '') because a setting that was
-- once SET LOCAL reads back as '' after the transaction, not as NULL.
create or replace function auth.uid() returns uuid
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.email() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

comment on function auth.uid() is 'Deprecated. Use auth.jwt() -> ''sub'' instead.';
comment on function auth.role() is 'Deprecated. Use auth.jwt() -> ''role'' instead.';
comment on function auth.email() is 'Deprecated. Use auth.jwt() -> ''email'' instead.';

alter function auth.uid() owner to supabase_auth_admin;
alter function auth.role() owner to supabase_auth_admin;
alter function auth.email() owner to supabase_auth_admin;
alter function auth.jwt() owner to supabase_auth_admin;

grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt() to public;
