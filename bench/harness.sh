#!/usr/bin/env bash
# `rlskit test` vs pg_prove vs a single-statement SQL floor, on one throwaway cluster.
# 67 generated owner-only tables x 16 own-row checks = 1,072 checks, the same in all three:
#   rlskit: an access file (the matrix is generated from it);
#   pg_prove: one pgTAP file per table (checks ordered so that allowed writes do not disturb later ones);
#   floor: every check in one DO block, sent as one statement (the server's own cost).
# Usage: bench/harness.sh [runs]   (median of `runs`, default 3). Targets: >= 3x pg_prove, <= 1.3x floor.
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
runs=${1:-3}
tables=67
command -v pg_prove >/dev/null || { echo "pg_prove missing: apt-get install libtap-parser-sourcehandler-pgtap-perl" >&2; exit 2; }

echo "building rlskit (release)…" >&2
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit
bench_start_cluster
gen=$(mktemp -d)
trap 'rm -rf "$gen"; bench_stop_cluster' EXIT

createdb bench
for f in sql/compat/*.sql sql/migrations/*.sql; do psql -qX -v ON_ERROR_STOP=1 -d bench -f "$f" >/dev/null 2>&1; done
psql -qX -d bench -c "create extension if not exists pgtap" >/dev/null

A=aaaaaaaa-0000-4000-8000-000000000001
B=bbbbbbbb-0000-4000-8000-000000000002
# The impersonation rlskit sends, so that all three do the same work per check: role and the
# claims GoTrue signs, legacy per-claim settings cleared, and what PostgREST sets for the request
# (method, path, headers, cookies; reads READ ONLY), added per statement by req().
exp=$(( $(date +%s) + 3600 ))
claims() { printf '{"aud":"authenticated","role":"authenticated","sub":"%s","email":"u-%s@bench.test","exp":%s,"iat":%s,"is_anonymous":false,"aal":"aal1","app_metadata":{"provider":"email","providers":["email"]},"user_metadata":{}}' "$1" "$1" "$exp" "$((exp - 3600))"; }
as_user() { printf "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', '%s', true)" "$(claims "$1")"; }
as_anon="select set_config('role', 'anon', true), set_config('request.jwt.claims', '{\"role\":\"anon\",\"iss\":\"supabase\"}', true)"
req() {
  local m t; t=$(grep -o 'public\.t[0-9]*' <<< "$1" | head -1)
  case ${1%% *} in select) m=GET ;; insert) m=POST ;; update) m=PATCH ;; *) m=DELETE ;; esac
  local h='{"accept":"application/json","content-type":"application/json"}' ro=""
  if [ $m = GET ]; then h='{"accept":"application/json"}'; ro=", set_config('transaction_read_only', 'on', true)"; fi
  # pgTAP files run their checks in one transaction: read-only could never be switched back off.
  [ "${2:-}" = no-read-only ] && ro=""
  case $1 in *"returning *") h='{"accept":"application/json","content-type":"application/json","prefer":"return=representation"}' ;; esac
  printf "%s" ", set_config('request.jwt.claim.sub', '', true), set_config('request.jwt.claim.role', '', true), set_config('request.jwt.claim.email', '', true), set_config('request.jwt.claim', '', true), set_config('storage.operation', '', true), set_config('storage.allow_delete_query', '', true), set_config('request.method', '$m', true), set_config('request.path', '/${t#public.}', true), set_config('request.headers', '$h', true), set_config('request.cookies', '{}', true)$ro"
}
signup="select set_config('role', 'supabase_auth_admin', true);
insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at) values
  ('$A', 'authenticated', 'authenticated', 'a@bench.test', '{}', now(), now()),
  ('$B', 'authenticated', 'authenticated', 'b@bench.test', '{}', now(), now());
select set_config('role', 'none', true);"

# Schema and access file.
{
  for i in $(seq 1 $tables); do cat <<SQL
create table public.t$i (id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id), body text not null);
alter table public.t$i enable row level security;
grant select, insert, update, delete on public.t$i to authenticated;
grant all on public.t$i to service_role;
create policy r on public.t$i for select to authenticated using ((select auth.uid()) = user_id);
create policy i on public.t$i for insert to authenticated with check ((select auth.uid()) = user_id);
create policy u on public.t$i for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy d on public.t$i for delete to authenticated using ((select auth.uid()) = user_id);
SQL
  done
} | psql -qX -v ON_ERROR_STOP=1 -d bench >/dev/null
for i in $(seq 1 $tables); do printf 'table public.t%s\n  owner user_id\n  read owner\n  write owner\n' "$i"; done > "$gen/bench.rls"

# The 16 checks of one table (the last: insert(…).select()) as (kind, actor-sql, statement); kinds: count1 count0 rows1 rows0 deny.
checks() { local t=$1; cat <<EOF
true|select|select relrowsecurity from pg_class where oid = 'public.$t'::regclass
count1|$(as_user $A)|select count(*)::int from public.$t where user_id = '$A'
count0|$(as_user $A)|select count(*)::int from public.$t where user_id = '$B'
count0|$(as_user $B)|select count(*)::int from public.$t where user_id = '$A'
deny|$as_anon|select count(*)::int from public.$t where user_id = '$A'
rows1|$(as_user $A)|insert into public.$t (user_id, body) values ('$A', 'new') returning 1
deny|$(as_user $A)|insert into public.$t (user_id, body) values ('$B', 'new') returning 1
deny|$as_anon|insert into public.$t (user_id, body) values ('$A', 'new') returning 1
rows1|$(as_user $A)|update public.$t set body = body where user_id = '$A' returning 1
rows0|$(as_user $A)|update public.$t set body = body where user_id = '$B' returning 1
deny|$(as_user $A)|update public.$t set user_id = '$B' where user_id = '$A' returning 1
deny|$as_anon|update public.$t set body = body where user_id = '$A' returning 1
rows1|$(as_user $A)|delete from public.$t where user_id = '$A' returning 1
rows0|$(as_user $A)|delete from public.$t where user_id = '$B' returning 1
deny|$as_anon|delete from public.$t where user_id = '$A' returning 1
rows1|$(as_user $A)|insert into public.$t (user_id, body) values ('$A', 'new') returning *
EOF
}
seed() { printf "insert into public.%s (user_id, body) values ('%s', 'a'), ('%s', 'b');\n" "$1" "$A" "$B"; }

# pgTAP: one file per table.
mkdir -p "$gen/pgtap"
for i in $(seq 1 $tables); do
  t=t$i; n=0
  { echo "begin;"; echo "select plan(16);"; echo "$signup"; seed $t
    while IFS='|' read -r kind actor sql; do
      n=$((n+1)); [ "$actor" = select ] || echo "$actor$(req "$sql" no-read-only);"
      case $kind in
        true)   echo "select ok(($sql), 'rls on $t');" ;;
        count1) echo "select is(($sql), 1, 'check $n');" ;;
        count0) echo "select is(($sql), 0, 'check $n');" ;;
        rows1)  echo "select isnt_empty(\$q\$ $sql \$q\$, 'check $n');" ;;
        rows0)  echo "select is_empty(\$q\$ $sql \$q\$, 'check $n');" ;;
        deny)   echo "select throws_ok(\$q\$ $sql \$q\$, '42501', null, 'check $n');" ;;
      esac
      echo "select set_config('role', 'none', true);"
    done < <(checks $t)
    echo "select * from finish();"; echo "rollback;"; } > "$gen/pgtap/$(printf '%03d' $i)_$t.sql"
done

# Floor: one DO block, every check in a subtransaction.
{
  echo "begin; do \$floor\$ declare n int; v int; ok int := 0; begin"
  echo "$signup" | sed 's/^select /perform /'
  for i in $(seq 1 $tables); do
    seed t$i
    while IFS='|' read -r kind actor sql; do
      echo "begin"
      [ "$actor" = select ] || echo "  ${actor/select/perform}$(req "$sql");"
      case $kind in
        true)   echo "  execute \$q\$ select ($sql)::int \$q\$ into v; ok := ok + v;" ;;
        count*) echo "  execute \$q\$ $sql \$q\$ into v; ok := ok + (v = ${kind#count})::int;" ;;
        rows*)  echo "  execute \$q\$ with x as ($sql) select count(*)::int from x \$q\$ into v; ok := ok + (v = ${kind#rows})::int;" ;;
        deny)   echo "  execute \$q\$ $sql \$q\$;" ;;
      esac
      echo "  raise exception using errcode = 'RB001';"
      echo "exception when sqlstate 'RB001' then null; when insufficient_privilege then ok := ok + 1; end;"
    done < <(checks t$i)
  done
  echo "raise notice 'floor: % of % checks passed', ok, $((tables * 16)); end \$floor\$; rollback;"
} > "$gen/floor.sql"

url="host=$PGHOST dbname=bench user=postgres"
time_ms() { local s; s=$(now_ns); "$@" >"$gen/out" 2>&1 || { cat "$gen/out" >&2; echo "failed: $*" >&2; exit 1; }; echo $(( ($(now_ns) - s) / 1000000 )); }
floor_cmd() { psql -qX -v ON_ERROR_STOP=1 -d bench -f "$gen/floor.sql"; }

# Sanity: every tool sees 1,072 passing checks.
"$rlskit" test --database-url "$url" --format tap "$gen/bench.rls" > "$gen/r.tap"
echo "rlskit:   $(grep -c '^ok ' "$gen/r.tap") ok, $(grep -c '^not ok' "$gen/r.tap" || true) not ok" >&2
pg_prove -d bench "$gen"/pgtap/*.sql > "$gen/prove.out" 2>&1 || { grep -v "^.*ok$" "$gen/prove.out" | head -30 >&2; exit 1; }; tail -1 "$gen/prove.out" >&2
floor_cmd > "$gen/floor.out" 2>&1 || { head -c 600 "$gen/floor.out" >&2; exit 1; }; grep -o "floor: .*" "$gen/floor.out" >&2

# rlskit and the floor alternate run by run, so that a machine's drift hits both alike; rlskit / floor
# is the median of the pairs' ratios.
for _ in $(seq 1 "$runs"); do
  r=$(time_ms "$rlskit" test --database-url "$url" --format tap "$gen/bench.rls")
  f=$(time_ms floor_cmd)
  echo "$r" >> "$gen/rlskit.all"; echo "$f" >> "$gen/floor.all"; ratio "$r" "$f" >> "$gen/ratio"; echo >> "$gen/ratio"
  time_ms "$rlskit" test --database-url "$url" --format tap --jobs 2 "$gen/bench.rls" >> "$gen/rlskit_j2.all"
done
for _ in $(seq 1 "$runs"); do time_ms pg_prove -d bench "$gen"/pgtap/*.sql; done > "$gen/pg_prove.all"
for tool in rlskit rlskit_j2 pg_prove floor; do median < "$gen/$tool.all" > "$gen/$tool.ms"; done
r=$(cat "$gen/rlskit.ms"); j=$(cat "$gen/rlskit_j2.ms"); p=$(cat "$gen/pg_prove.ms"); f=$(cat "$gen/floor.ms")
checks=$((tables * 16))
printf '%-28s %8s ms  (%.3f ms/check)\n' "rlskit test" "$r" "$(awk -v a="$r" -v c=$checks 'BEGIN{print a/c}')"
printf '%-28s %8s ms\n' "rlskit test --jobs 2" "$j"
printf '%-28s %8s ms  (%.3f ms/check)\n' "pg_prove (pgTAP)" "$p" "$(awk -v a="$p" -v c=$checks 'BEGIN{print a/c}')"
printf '%-28s %8s ms  (%.3f ms/check)\n' "single-statement SQL floor" "$f" "$(awk -v a="$f" -v c=$checks 'BEGIN{print a/c}')"
echo "pg_prove / rlskit = $(ratio "$p" "$r")x   (target >= 3)"
echo "rlskit / floor    = $(grep . "$gen/ratio" | median)x, median of $runs paired runs, range $(grep . "$gen/ratio" | sort -g | sed -n '1p;$p' | paste -sd-) (target <= 1.3)"
