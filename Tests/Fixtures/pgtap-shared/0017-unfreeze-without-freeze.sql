-- unfreeze_time with no freeze in this file's session (0013 froze time and rolled back): basejump
-- 0.0.6 reads tests.original_search_path, which only freeze_time gives a session, so it raises.
begin;
select plan(2);
select throws_ok(
  'select tests.unfreeze_time()', '42704',
  'unrecognized configuration parameter "tests.original_search_path"',
  'unfreezing needs a freeze in this session');
select tests.freeze_time('2020-01-01 00:00:00+00');
select tests.unfreeze_time();
select isnt(now(), '2020-01-01 00:00:00+00'::timestamptz, 'after a freeze it unfreezes');
select * from finish();
rollback;
