insert into public.companies (id, name, owner) values
  (1, 'Acme', '00000000-0000-4000-8000-0000000000a1'),
  (2, 'Globex', '00000000-0000-4000-8000-0000000000b2');

-- A user signed up by email, created as seeds for `supabase db reset` create one: the
-- auth.users row and its identity.
insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
values ('00000000-0000-0000-0000-000000000000', '00000000-0000-4000-8000-0000000000a1', 'authenticated',
  'authenticated', 'owner@acme.test', '', now(), '{"provider": "email", "providers": ["email"]}', '{}', now(), now());
insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
values ('00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a1',
  '{"sub": "00000000-0000-4000-8000-0000000000a1", "email": "Owner@acme.test"}', 'email', now(), now(), now());
