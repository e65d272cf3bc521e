#!/usr/bin/env bash
# pgTAP suites, pg_prove vs `rlskit pgtap`, side by side on one throwaway cluster.
# 10 files x 100 RLS assertions (supabase-test-helpers: authenticate_as, clear_authentication,
# throws_ok 42501, is_empty) against the Supabase stand-in and a small owner-only table.
# Each tool runs as its users would: pg_prove needs the helpers installed in its database;
# rlskit brings them built in (created in its run transaction and rolled back).
# A second suite shares state as pg_prove allows: a setup file commits the users and a note,
# the same 10 files use them inside BEGIN … ROLLBACK, a teardown file removes them.
# Usage: bench/pgtap.sh [runs]   (best of `runs`, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
files=10
asserts=100

command -v pg_prove >/dev/null || { echo "pg_prove missing: apt-get install libtap-parser-sourcehandler-pgtap-perl" >&2; exit 2; }
bindir=${RLSKIT_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}

echo "building rlskit (release)…" >&2
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit

work=$(mktemp -d)
chmod 755 "$work"
as_server() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
cleanup() { as_server "'$bindir/pg_ctl' -D '$work/data' -m immediate stop" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$work"

as_server "'$bindir/initdb' -D '$work/data' -A trust -U postgres >/dev/null"
as_server "'$bindir/pg_ctl' -D '$work/data' -l '$work/log' -o \"-k '$work' -c listen_addresses='' -c fsync=off\" -w start >/dev/null"
export PGHOST=$work PGUSER=postgres

# Both databases: stand-in, pgTAP, and the table under test. Only pg_prove's gets the helpers.
setup() {
  createdb "$1"
  for f in sql/compat/*.sql; do psql -qX -v ON_ERROR_STOP=1 -d "$1" -f "$f" >/dev/null; done
  psql -qX -v ON_ERROR_STOP=1 -d "$1" >/dev/null <<'SQL'
create extension pgtap;
create table public.bench_notes (
  id bigint generated always as identity primary key,
  owner_id uuid not null default auth.uid() references auth.users (id),
  body text not null
);
alter table public.bench_notes enable row level security;
grant select, insert, update, delete on public.bench_notes to authenticated;
grant select on public.bench_notes to anon;
grant all on public.bench_notes to service_role;
create policy "own rows" on public.bench_notes for all to authenticated
  using ((select auth.uid()) = owner_id) with check ((select auth.uid()) = owner_id);
SQL
}
setup bench_prove
setup bench_rlskit
# pg_prove has no built-in helpers: install the same functions, as a project would with dbdev.
"$rlskit" pgtap --print-helpers | psql -qX -v ON_ERROR_STOP=1 -d bench_prove >/dev/null

suite=$work/suite
mkdir -p "$suite"
for f in $(seq -w 1 $files); do
  {
    echo "begin;"
    echo "select plan($asserts);"
    echo "select tests.create_supabase_user('alice'); select tests.create_supabase_user('bob');"
    echo "select tests.authenticate_as('alice');"
    echo "insert into public.bench_notes (body) values ('alice note');"
    for i in $(seq 1 $asserts); do
      case $((i % 4)) in
        0) echo "select tests.authenticate_as('alice');"
           echo "select is((select count(*)::int from public.bench_notes), 1, 'alice sees her note $i');" ;;
        1) echo "select tests.authenticate_as('bob');"
           echo "select is_empty(\$\$ select * from public.bench_notes \$\$, 'bob sees nothing $i');" ;;
        2) echo "select throws_ok(\$\$ insert into public.bench_notes (owner_id, body) values (tests.get_supabase_uid('alice'), 'x') \$\$, '42501', null, 'bob cannot write as alice $i');" ;;
        3) echo "select tests.clear_authentication();"
           echo "select is_empty(\$\$ select * from public.bench_notes \$\$, 'anon sees nothing $i');" ;;
      esac
    done
    echo "select * from finish();"
    echo "rollback;"
  } > "$suite/$f-rls.sql"
done

shared=$work/shared
mkdir -p "$shared"
{
  echo "select tests.create_supabase_user('alice'); select tests.create_supabase_user('bob');"
  echo "insert into public.bench_notes (owner_id, body) values (tests.get_supabase_uid('alice'), 'alice note');"
  echo "select plan(1); select ok(true, 'setup');"
} > "$shared/0000-setup.sql"
for f in "$suite"/*.sql; do
  grep -v -e "create_supabase_user" -e "values ('alice note')" "$f" > "$shared/$(basename "$f")"
done
{
  echo "delete from public.bench_notes; delete from auth.users where raw_user_meta_data ->> 'test_identifier' in ('alice', 'bob');"
  echo "select plan(1); select ok(true, 'teardown');"
} > "$shared/9999-teardown.sql"

now() { date +%s.%N; }
best() { # best wall time of $runs runs of "$@"; fails if the command fails
  local b="" t0 t1 t
  for _ in $(seq 1 "$runs"); do
    t0=$(now); "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; echo "failed: $*" >&2; exit 1; }; t1=$(now)
    t=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}

total=$((files * asserts))
prove1=$(best pg_prove -d bench_prove "$suite"/*.sql)
prove2=$(best pg_prove -j 2 -d bench_prove "$suite"/*.sql)
# The floor: the same statements through one psql session (no per-file sessions, helpers installed).
cat "$suite"/*.sql > "$work/all.sql"
floor=$(best psql -qX -v ON_ERROR_STOP=1 -d bench_prove -f "$work/all.sql")
ours1=$(best "$rlskit" pgtap --database-url "host=$work user=postgres dbname=bench_rlskit" "$suite")
ours2=$(best "$rlskit" pgtap --jobs 2 --database-url "host=$work user=postgres dbname=bench_rlskit" "$suite")

shared1=$(best pg_prove -d bench_prove "$shared"/*.sql)
oursShared=$(best "$rlskit" pgtap --database-url "host=$work user=postgres dbname=bench_rlskit" "$shared")

printf '%s files x %s assertions = %s, best of %s runs (whole process, wall clock)\n' "$files" "$asserts" "$total" "$runs"
printf '  pg_prove            %6.3f s   %6.3f ms/assertion\n' "$prove1" "$(echo "$prove1 * 1000 / $total" | bc -l)"
printf '  pg_prove -j 2       %6.3f s\n' "$prove2"
printf '  one psql session    %6.3f s   (the same SQL, one session)\n' "$floor"
printf '  rlskit pgtap        %6.3f s   %6.3f ms/assertion\n' "$ours1" "$(echo "$ours1 * 1000 / $total" | bc -l)"
printf '  rlskit pgtap -j 2   %6.3f s\n' "$ours2"
printf '  shared state: pg_prove %6.3f s, rlskit pgtap %6.3f s (setup and teardown files around the same 10)\n' \
  "$shared1" "$oursShared"
printf 'speed-up, one job: %.2fx (target >= 2x); two jobs: %.2fx; shared state, one job: %.2fx; one psql session / rlskit: %.2fx\n' \
  "$(echo "$prove1 / $ours1" | bc -l)" "$(echo "$prove2 / $ours2" | bc -l)" "$(echo "$shared1 / $oursShared" | bc -l)" \
  "$(echo "$floor / $ours1" | bc -l)"
