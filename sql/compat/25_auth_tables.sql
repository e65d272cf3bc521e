-- rlskit compat layer: the rest of GoTrue's tables that seeds, triggers and policies name
-- (a seed that creates a user inserts its identity too; an aal2 policy reads mfa_factors).
-- Column names and order as in GoTrue, so positional inserts land where they would there.
-- Nothing here is used by the stand-in itself. Idempotent; only beside our auth.users.

do $$
begin
  if to_regtype('auth.aal_level') is null then
    create type auth.aal_level as enum ('aal1', 'aal2', 'aal3');
  end if;
  if to_regtype('auth.factor_type') is null then
    create type auth.factor_type as enum ('totp', 'webauthn', 'phone');
  end if;
  if to_regtype('auth.factor_status') is null then
    create type auth.factor_status as enum ('unverified', 'verified');
  end if;
  if to_regtype('auth.code_challenge_method') is null then
    create type auth.code_challenge_method as enum ('s256', 'plain');
  end if;
  if to_regtype('auth.one_time_token_type') is null then
    create type auth.one_time_token_type as enum (
      'confirmation_token', 'reauthentication_token', 'recovery_token',
      'email_change_token_new', 'email_change_token_current', 'phone_change_token');
  end if;
end
$$;

create table if not exists auth.instances (
  id              uuid not null primary key,
  uuid            uuid,
  raw_base_config text,
  created_at      timestamptz,
  updated_at      timestamptz
);

create table if not exists auth.identities (
  provider_id     text not null,
  user_id         uuid not null references auth.users (id) on delete cascade,
  identity_data   jsonb not null,
  provider        text not null,
  last_sign_in_at timestamptz,
  created_at      timestamptz,
  updated_at      timestamptz,
  email           text generated always as (lower(identity_data ->> 'email')) stored,
  id              uuid not null default gen_random_uuid() primary key,
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);
create index if not exists identities_email_idx on auth.identities (email text_pattern_ops);

create table if not exists auth.sessions (
  id           uuid not null primary key,
  user_id      uuid not null references auth.users (id) on delete cascade,
  created_at   timestamptz,
  updated_at   timestamptz,
  factor_id    uuid,
  aal          auth.aal_level,
  not_after    timestamptz,
  refreshed_at timestamp,
  user_agent   text,
  ip           inet,
  tag          text
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);

create table if not exists auth.refresh_tokens (
  instance_id uuid,
  id          bigserial primary key,
  token       varchar(255) unique,
  user_id     varchar(255),
  revoked     boolean,
  created_at  timestamptz,
  updated_at  timestamptz,
  parent      varchar(255),
  session_id  uuid references auth.sessions (id) on delete cascade
);

create table if not exists auth.mfa_factors (
  id                   uuid not null primary key,
  user_id              uuid not null references auth.users (id) on delete cascade,
  friendly_name        text,
  factor_type          auth.factor_type not null,
  status               auth.factor_status not null,
  created_at           timestamptz not null,
  updated_at           timestamptz not null,
  secret               text,
  phone                text,
  last_challenged_at   timestamptz unique,
  web_authn_credential jsonb,
  web_authn_aaguid     uuid
);

create table if not exists auth.mfa_challenges (
  id                     uuid not null primary key,
  factor_id              uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at             timestamptz not null,
  verified_at            timestamptz,
  ip_address             inet not null,
  otp_code               text,
  web_authn_session_data jsonb
);

create table if not exists auth.mfa_amr_claims (
  session_id            uuid not null references auth.sessions (id) on delete cascade,
  created_at            timestamptz not null,
  updated_at            timestamptz not null,
  authentication_method text not null,
  id                    uuid not null primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);

create table if not exists auth.audit_log_entries (
  instance_id uuid,
  id          uuid not null primary key,
  payload     json,
  created_at  timestamptz,
  ip_address  varchar(64) not null default ''
);

create table if not exists auth.one_time_tokens (
  id         uuid not null primary key,
  user_id    uuid not null references auth.users (id) on delete cascade,
  token_type auth.one_time_token_type not null,
  token_hash text not null check (char_length(token_hash) > 0),
  relates_to text not null,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now()
);

create table if not exists auth.schema_migrations (
  version varchar(255) not null primary key
);

-- As auth.users: owned by supabase_auth_admin, RLS on with no policies, nothing for the API roles.
do $$
declare
  t text;
begin
  foreach t in array array['instances', 'identities', 'sessions', 'refresh_tokens', 'mfa_factors',
                           'mfa_challenges', 'mfa_amr_claims', 'audit_log_entries', 'one_time_tokens',
                           'schema_migrations'] loop
    execute format('alter table auth.%I owner to supabase_auth_admin', t);
    execute format('alter table auth.%I enable row level security', t);
    execute format('revoke all on auth.%I from public, anon, authenticated, service_role', t);
  end loop;
end
$$;
alter type auth.aal_level owner to supabase_auth_admin;
alter type auth.factor_type owner to supabase_auth_admin;
alter type auth.factor_status owner to supabase_auth_admin;
alter type auth.code_challenge_method owner to supabase_auth_admin;
alter type auth.one_time_token_type owner to supabase_auth_admin;
