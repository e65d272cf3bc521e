-- Unqualified names: this file must not inherit the previous file's empty search path.
create index companies_owner on companies (owner);

-- The publication reset as Supabase's realtime guide writes it.
begin;
  drop publication if exists supabase_realtime;
  create publication supabase_realtime;
commit;

alter publication supabase_realtime add table companies;
