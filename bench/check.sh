#!/usr/bin/env bash
# Cold `rlskit check` (throwaway server → stand-in → schema → policy tests → summary) as a whole
# process, next to the same steps by hand: initdb + pg_ctl start + psql -f of sql/ + pg_prove of
# a pgTAP file with as many RLS assertions as rlskit runs + pg_ctl stop; and a bare initdb +
# start + stop. All in the folder rlskit itself uses (/dev/shm when it has room, else /tmp).
# Targets: a warm check (cached cluster template) <= 0.5x by hand and <= 0.6x the bare server;
# a check with no cache within 1.1x of the previous release's cold check.
# Usage: bench/check.sh [runs]   (median of runs, default 5)
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
runs=${1:-5}
command -v pg_prove >/dev/null || { echo "pg_prove missing: apt-get install libtap-parser-sourcehandler-pgtap-perl" >&2; exit 2; }
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit
base=${TMPDIR:-/tmp}
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR==2 { print $4 }')" -ge 1048576 ]; then base=/dev/shm; fi
work=$(mktemp -d -p "$base"); chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# How many checks rlskit runs on the built-in schema (from its JSON report).
(cd "$work" && "$rlskit" check --builtin --format json --output "$work/r.json" >/dev/null)
n=$(python3 -c "import json,sys; print(len(json.load(open('$work/r.json'))['tests']['outcomes']))" 2>/dev/null || grep -c '"status"' "$work/r.json")

# An equivalent pgTAP suite: n impersonated own-row assertions on profiles and posts.
A=aaaaaaaa-0000-4000-8000-000000000001; B=bbbbbbbb-0000-4000-8000-000000000002
{
  echo "begin; select plan($n);"
  echo "select set_config('role', 'supabase_auth_admin', true);"
  echo "insert into auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at) values ('$A','authenticated','authenticated','a@x.test','{}',now(),now()), ('$B','authenticated','authenticated','b@x.test','{}',now(),now());"
  for ((i = 0; i < n; i++)); do
    case $((i % 3)) in
      0) echo "select set_config('role','authenticated',true), set_config('request.jwt.claims','{\"role\":\"authenticated\",\"sub\":\"$A\"}',true);"
         echo "select is((select count(*)::int from public.profiles where id = '$A'), 1, 'A reads own profile $i');" ;;
      1) echo "select set_config('role','authenticated',true), set_config('request.jwt.claims','{\"role\":\"authenticated\",\"sub\":\"$A\"}',true);"
         echo "select is_empty(\$\$ update public.profiles set full_name = 'x' where id = '$B' returning 1 \$\$, 'A cannot update B $i');" ;;
      2) echo "select set_config('role','anon',true), set_config('request.jwt.claims','{\"role\":\"anon\"}',true);"
         echo "select throws_ok(\$\$ insert into public.posts (author_id, image_path) values ('$A', '$A/x.png') \$\$, '42501', null, 'anon cannot post $i');" ;;
    esac
  done
  echo "select * from finish(); rollback;"
} > "$work/equivalent.sql"
chmod 644 "$work/equivalent.sql"

bare() {
  local d; d=$(mktemp -d -p "$base"); [ "$(id -u)" -eq 0 ] && chown postgres "$d"
  "${AS[@]}" "$PGBIN/initdb" -D "$d/data" -A trust -U postgres -N >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -l "$d/log" -w -o "-c listen_addresses='' -k $d -c fsync=off" start >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null
  rm -rf "$d"
}
by_hand() {
  local d; d=$(mktemp -d -p "$base"); [ "$(id -u)" -eq 0 ] && chown postgres "$d"
  "${AS[@]}" "$PGBIN/initdb" -D "$d/data" -A trust -U postgres -N >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -l "$d/log" -w -o "-c listen_addresses='' -k $d -c fsync=off" start >/dev/null
  psql -qX -h "$d" -U postgres -d postgres -v ON_ERROR_STOP=1 -1 $(for f in sql/compat/*.sql sql/migrations/*.sql; do printf -- '-f %s ' "$f"; done) >/dev/null 2>&1
  psql -qX -h "$d" -U postgres -d postgres -c "create extension pgtap" >/dev/null
  pg_prove -h "$d" -U postgres -d postgres "$work/equivalent.sql" >/dev/null 2>&1 || true
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null
  rm -rf "$d"
}
# A first run: an empty cache folder but for the sandbox's server module (compiled once per
# server build, timed apart below), so the run pays initdb and writing the cluster template.
module=$(ls "${XDG_CACHE_HOME:-$HOME/.cache}"/rlskit/rlskit_sandbox-*.so | head -n 1)
first_run() {
  local c; c=$(mktemp -d -p "$base"); mkdir -m 700 "$c/rlskit"; cp -p "$module" "$c/rlskit/"
  local t0; t0=$(now_ns)
  (cd "$work" && XDG_CACHE_HOME="$c" "$rlskit" check --builtin >/dev/null)
  echo $(($(now_ns) - t0))
  rm -rf "$c"
}
compile_module() {
  local c; c=$(mktemp -d -p "$base"); mkdir -m 700 "$c/rlskit"
  local t0; t0=$(now_ns)
  (cd "$work" && XDG_CACHE_HOME="$c" "$rlskit" check --builtin >/dev/null)
  echo $(($(now_ns) - t0))
  rm -rf "$c"
}
secs() { awk -v d=$(($2 - $1)) 'BEGIN { print d / 1e9 }'; }
ours=(); cold=(); hand=(); server=(); fresh=()
for ((r = 0; r < runs; r++)); do
  t0=$(now_ns); (cd "$work" && "$rlskit" check --builtin >/dev/null); t1=$(now_ns)
  (cd "$work" && RLSKIT_NO_CACHE=1 "$rlskit" check --builtin >/dev/null); t2=$(now_ns)
  by_hand; t3=$(now_ns); bare; t4=$(now_ns)
  fresh+=("$(awk -v d="$(first_run)" 'BEGIN { print d / 1e9 }')")
  ours+=("$(secs "$t0" "$t1")"); cold+=("$(secs "$t1" "$t2")"); hand+=("$(secs "$t2" "$t3")"); server+=("$(secs "$t3" "$t4")")
done
o=$(printf '%s\n' "${ours[@]}" | median); c=$(printf '%s\n' "${cold[@]}" | median)
f=$(printf '%s\n' "${fresh[@]}" | median); m=$(awk -v d="$(compile_module)" 'BEGIN { print d / 1e9 }')
h=$(printf '%s\n' "${hand[@]}" | median); s=$(printf '%s\n' "${server[@]}" | median)
echo "runs: $runs (median seconds, whole process, in $base); $n policy checks"
echo "rlskit check (cached template):                        $o"
echo "rlskit check (RLSKIT_NO_CACHE=1, initdb every run):     $c"
echo "rlskit check (first run: empty cache, module kept):    $f"
echo "rlskit check (first ever: the module compiled too, once): $m"
echo "by hand (initdb, pg_ctl, psql -f, pg_prove, pg_ctl stop): $h"
echo "bare initdb + pg_ctl start + stop:                      $s"
echo "check / by hand = $(ratio "$o" "$h")   (target <= 0.5)"
echo "check / bare server = $(ratio "$o" "$s")   (target <= 0.6)"
echo "no-cache check / by hand = $(ratio "$c" "$h")"
echo "first run / by hand = $(ratio "$f" "$h")   (the issue's baseline: a cold check was 1.09x by hand; target <= 1.2)"
