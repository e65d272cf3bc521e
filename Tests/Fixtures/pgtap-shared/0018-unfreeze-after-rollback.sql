-- A freeze rolled back leaves the setting empty in the session: basejump's unfreeze_time then
-- sets an empty search path (so the next lines qualify everything until they set one again).
begin;
select tests.freeze_time('2020-01-01 00:00:00+00');
rollback;
begin;
select tests.unfreeze_time();
select pg_catalog.set_config('search_path',
  case pg_catalog.current_setting('search_path') when '' then '"$user", public, extensions' else 'nowhere' end, true);
select plan(1);
select pass('the search path was empty');
select * from finish();
rollback;
