#!/usr/bin/env bash
# Times `rlskit audit` as a whole process on a synthetic catalog (2,000 tables, ~6,500
# policies, 500 SECURITY DEFINER functions per unit of SCALE) next to psql running the same
# catalog queries (and, with SPLINTER_SQL=path/to/splinter.sql, Supabase's splinter), on a
# throwaway cluster. Usage: bench/audit.sh [SCALE…]   (default: 1 10)
set -euo pipefail
cd "$(dirname "$0")/.."
scales=("${@:-1}")
[ $# -eq 0 ] && scales=(1 10)
runs=${RUNS:-7}

bindir=${RLSKIT_PG_BINDIR:-$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit

work=$(mktemp -d "${TMPDIR:-/tmp}/rlskit-bench-XXXXXX")
as_server=()
if [ "$(id -u)" = 0 ]; then chown postgres "$work"; as_server=(runuser -u postgres --); fi
cleanup() { "${as_server[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"${as_server[@]}" "$bindir/initdb" -D "$work/data" -A trust -U postgres >/dev/null
"${as_server[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/log" -w \
  -o "-k $work -c listen_addresses= -c fsync=off -c shared_buffers=256MB -c max_locks_per_transaction=512" start >/dev/null
# (psql runs every catalog query in one transaction and locks every table with a policy;
# rlskit reads policies in chunks and needs no more locks than the default.)
export PGHOST=$work PGUSER=postgres

# median of the elapsed seconds printed by the command on fd 3, one per line
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for scale in "${scales[@]}"; do
  db="bench_$scale"
  createdb "$db"
  for f in sql/compat/*.sql; do psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$f" >/dev/null 2>&1; done
  tables=$((2000 * scale)); functions=$((500 * scale))
  started=$(date +%s.%N)
  # 1,000 tables per transaction: one DO block for 20,000 would exhaust the lock table.
  for ((from = 1; from <= tables; from += 1000)); do
    to=$((from + 999 < tables ? from + 999 : tables))
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
do \$\$
declare i int;
begin
  for i in $from..$to loop
    execute format('create table public.t%s (id bigint primary key, user_id uuid, team_id int, body text, created_at timestamptz default now())', i);
    execute format('alter table public.t%s enable row level security', i);
    if i % 2 = 0 then execute format('create index on public.t%s (user_id)', i); end if;
    execute format('grant select, insert, update, delete on public.t%s to authenticated', i);
    execute format('create policy "read own %s" on public.t%s for select to authenticated using ((select auth.uid()) = user_id)', i, i);
    execute format('create policy "insert own %s" on public.t%s for insert to authenticated with check ((select auth.uid()) = user_id)', i, i);
    execute format('create policy "update own %s" on public.t%s for update to authenticated using (auth.uid() = user_id) with check (%s)', i, i,
                   case when i % 10 = 0 then 'body <> ''''' else '(select auth.uid()) = user_id' end);
    if i % 4 = 0 then
      execute format('create policy "team read %s" on public.t%s for select to authenticated using (team_id in (select 1 where (select auth.uid()) is not null))', i, i);
    end if;
  end loop;
end
\$\$;
SQL
  done
  psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
do \$\$
declare i int;
begin
  for i in 1..$functions loop
    execute format('create function public.f%s(x int) returns int language sql security definer %s as \$f\$ select x + 1 \$f\$', i,
                   case when i % 5 = 0 then '' else 'set search_path = ''''' end);
    if i % 3 <> 0 then execute format('revoke execute on function public.f%s(int) from public', i); end if;
  end loop;
end
\$\$;
SQL
  build=$(echo "$(date +%s.%N) - $started" | bc)
  counts=$(psql -X -At -d "$db" -c "select (select count(*) from pg_class c join pg_namespace n on n.oid=c.relnamespace where n.nspname='public' and relkind='r') || ' tables, ' || (select count(*) from pg_policy) || ' policies, ' || (select count(*) from pg_proc where prosecdef) || ' SECURITY DEFINER functions'")
  psql -X -q -d "$db" -c "vacuum analyze" >/dev/null
  url="host=$work user=postgres dbname=$db"
  "$rlskit" audit --print-queries > "$work/queries.sql"

  "$rlskit" audit --database-url "$url" --format json > /dev/null || true   # warm the cache
  rk=$(for _ in $(seq "$runs"); do /usr/bin/time -q -f "%e %M" -o "$work/t" "$rlskit" audit --database-url "$url" --format json > "$work/out.json" || true; cat "$work/t"; done)
  ps=$(for _ in $(seq "$runs"); do /usr/bin/time -q -f "%e %M" -o "$work/t" psql -X -q -d "$db" -f "$work/queries.sql" > /dev/null; cat "$work/t"; done)
  rk_s=$(echo "$rk" | awk '{print $1}' | median); rk_mb=$(echo "$rk" | awk '{print $2}' | sort -n | tail -1)
  ps_s=$(echo "$ps" | awk '{print $1}' | median)
  findings=$(grep -c '"fingerprint"' "$work/out.json" || true)
  echo "scale $scale: $counts (built in ${build%.*} s)"
  echo "  rlskit audit (whole process, median of $runs): ${rk_s} s, max RSS $((rk_mb / 1024)) MB, $findings findings"
  echo "  psql -f same catalog queries (median of $runs):  ${ps_s} s"
  echo "  ratio rlskit / psql: $(echo "scale=2; $rk_s / $ps_s" | bc)"
  if [ -n "${SPLINTER_SQL:-}" ]; then
    # One transaction, as splinter is meant to run (its `set local search_path` then applies).
    sp=$(for _ in $(seq "$runs"); do /usr/bin/time -q -f "%e" -o "$work/t" psql -X -q -1 -d "$db" -f "$SPLINTER_SQL" > /dev/null; cat "$work/t"; done)
    sp_s=$(echo "$sp" | median)
    sp_ratio=$(echo "scale=2; $sp_s / $rk_s" | bc)
    echo "  splinter via psql -1 -f (median of $runs): ${sp_s} s"
    echo "  ratio splinter / rlskit: $sp_ratio (target >= 3: $(echo "$sp_ratio >= 3" | bc | sed 's/1/met/; s/0/missed/'))"
  fi
done
