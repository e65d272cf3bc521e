-- pgTAP sees the same recordings.
begin;
select plan(3);
insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
values ('5a1e0000-0000-4000-8000-000000000001', 'authenticated', 'authenticated', 'erin@example.test', '{}', now(), now());
insert into public.profiles (id, avatar_url) values ('5a1e0000-0000-4000-8000-000000000001', 'erin/a.png');
update public.profiles set avatar_url = null where id = '5a1e0000-0000-4000-8000-000000000001';
select is((select count(*)::int from net.http_request_queue where method = 'DELETE' and url like '%/avatars/erin/a.png'), 1,
          'clearing an avatar requests its deletion');
select is((select status from extensions.http_get('https://example.test/ping')), 200, 'http answers 200');
select is((select method || ' ' || url from rlskit_http.requests), 'GET https://example.test/ping', 'http records the request');
select * from finish();
rollback;
