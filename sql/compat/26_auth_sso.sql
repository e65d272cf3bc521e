-- rlskit compat layer: GoTrue's SSO and PKCE tables, which `supabase db diff` output of
-- projects names (dropping or altering their columns and constraints, as GoTrue's own
-- migrations changed them). Columns in GoTrue's order; nothing here is used by the stand-in.
-- Idempotent; only beside our auth.users.

create table if not exists auth.flow_state (
  id                     uuid not null primary key,
  user_id                uuid,
  auth_code              text not null,
  code_challenge_method  auth.code_challenge_method not null,
  code_challenge         text not null,
  provider_type          text not null,
  provider_access_token  text,
  provider_refresh_token text,
  created_at             timestamptz,
  updated_at             timestamptz,
  authentication_method  text not null,
  auth_code_issued_at    timestamptz
);
create index if not exists idx_auth_code on auth.flow_state (auth_code);
create index if not exists idx_user_id_auth_method on auth.flow_state (user_id, authentication_method);

create table if not exists auth.sso_providers (
  id          uuid not null primary key,
  resource_id text,
  created_at  timestamptz,
  updated_at  timestamptz,
  constraint "resource_id not empty" check (resource_id = null or char_length(resource_id) > 0)
);
create unique index if not exists sso_providers_resource_id_idx on auth.sso_providers (lower(resource_id));

create table if not exists auth.sso_domains (
  id              uuid not null primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  domain          text not null,
  created_at      timestamptz,
  updated_at      timestamptz,
  constraint "domain not empty" check (char_length(domain) > 0)
);
create index if not exists sso_domains_sso_provider_id_idx on auth.sso_domains (sso_provider_id);
create unique index if not exists sso_domains_domain_idx on auth.sso_domains (lower(domain));

create table if not exists auth.saml_providers (
  id                uuid not null primary key,
  sso_provider_id   uuid not null references auth.sso_providers (id) on delete cascade,
  entity_id         text not null unique,
  metadata_xml      text not null,
  metadata_url      text,
  attribute_mapping jsonb,
  created_at        timestamptz,
  updated_at        timestamptz,
  name_id_format    text,
  constraint "metadata_xml not empty" check (char_length(metadata_xml) > 0),
  constraint "metadata_url not empty" check (metadata_url = null or char_length(metadata_url) > 0),
  constraint "entity_id not empty" check (char_length(entity_id) > 0)
);
create index if not exists saml_providers_sso_provider_id_idx on auth.saml_providers (sso_provider_id);

create table if not exists auth.saml_relay_states (
  id              uuid not null primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  request_id      text not null,
  for_email       text,
  redirect_to     text,
  created_at      timestamptz,
  updated_at      timestamptz,
  flow_state_id   uuid,
  constraint "request_id not empty" check (char_length(request_id) > 0),
  constraint saml_relay_states_flow_state_id_fkey foreign key (flow_state_id)
    references auth.flow_state (id) on delete cascade
);
create index if not exists saml_relay_states_sso_provider_id_idx on auth.saml_relay_states (sso_provider_id);
create index if not exists saml_relay_states_for_email_idx on auth.saml_relay_states (for_email);

create index if not exists mfa_factors_user_id_idx on auth.mfa_factors (user_id);

-- As auth.users: owned by supabase_auth_admin, RLS on with no policies, nothing for the API roles.
do $$
declare
  t text;
begin
  foreach t in array array['flow_state', 'sso_providers', 'sso_domains', 'saml_providers', 'saml_relay_states'] loop
    execute format('alter table auth.%I owner to supabase_auth_admin', t);
    execute format('alter table auth.%I enable row level security', t);
    execute format('revoke all on auth.%I from public, anon, authenticated, service_role', t);
  end loop;
end
$$;
