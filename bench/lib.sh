# Shared helpers for bench/*.sh: a throwaway PostgreSQL and a median timer (public tools only).
set -euo pipefail
BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PGBIN="${RLSKIT_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}"
AS=()
[ "$(id -u)" -eq 0 ] && AS=(setpriv --reuid=postgres --regid=postgres --init-groups --)

# Starts a cluster in $BENCH_DIR; exports PGHOST/PGUSER/PGDATABASE; stopped on exit.
bench_start_cluster() {
  BENCH_DIR=$(mktemp -d)
  [ "$(id -u)" -eq 0 ] && chown postgres "$BENCH_DIR"
  "${AS[@]}" "$PGBIN/initdb" -D "$BENCH_DIR/data" -A trust -U postgres -N >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -l "$BENCH_DIR/log" -w \
    -o "-c listen_addresses='' -k $BENCH_DIR -c fsync=off -c synchronous_commit=off" start >/dev/null
  export PGHOST="$BENCH_DIR" PGUSER=postgres PGDATABASE=postgres
  trap bench_stop_cluster EXIT
}
bench_stop_cluster() {
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$BENCH_DIR"
}

# now_ns: monotonic-enough wall clock in nanoseconds.
now_ns() { date +%s%N; }

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# ratio A B -> A/B with 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
