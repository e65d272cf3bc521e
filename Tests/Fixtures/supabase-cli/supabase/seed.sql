insert into public.companies (id, name, owner) values
  (1, 'Acme', '00000000-0000-4000-8000-0000000000a1'),
  (2, 'Globex', '00000000-0000-4000-8000-0000000000b2');
