-- Shaped like a `supabase db dump`: it empties the search path for its session.
SET statement_timeout = 0;
SET lock_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

CREATE TABLE IF NOT EXISTS "public"."companies" (
    "id" bigint NOT NULL PRIMARY KEY,
    "name" text NOT NULL,
    "owner" uuid
);
ALTER TABLE "public"."companies" ENABLE ROW LEVEL SECURITY;
CREATE POLICY "owners read their company" ON "public"."companies"
    FOR SELECT TO "authenticated" USING (("owner" = (SELECT "auth"."uid"())));
GRANT SELECT ON TABLE "public"."companies" TO "authenticated";
