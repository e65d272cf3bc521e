-- Another common spelling: upper case, no http.
BEGIN;
-- dbdev preamble: begin
CREATE EXTENSION IF NOT EXISTS "basejump-supabase_test_helpers";
-- dbdev preamble: end
SELECT plan(1);
SELECT ok(tests.get_supabase_uid('owner') IS NOT NULL, 'helpers after CREATE EXTENSION');
SELECT * FROM finish();
ROLLBACK;
