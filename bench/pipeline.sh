#!/usr/bin/env bash
# 10,000 small parameterized INSERTs in one transaction: libpq pipeline mode vs one round trip
# each (both through the Postgres module), and psql running the same statements from a file.
# Prints medians of RUNS runs and the ratios. Target: pipeline >= 5x faster than sequential.
source "$(dirname "$0")/lib.sh"
N=${N:-10000}; RUNS=${RUNS:-5}
cd "$BENCH_ROOT" && swift build -c release --product rlskit-bench >/dev/null
BIN="$BENCH_ROOT/.build/release/rlskit-bench"
bench_start_cluster
sqlfile="$BENCH_DIR/inserts.sql"
{ echo "begin; create temp table bench_t (id int primary key, v text);"
  for ((i = 0; i < N; i++)); do echo "insert into bench_t (id, v) values ($i, 'value $i');"; done
  echo "commit;"; } > "$sqlfile"
chmod 644 "$sqlfile"
# One line per transport and statement kind: the Unix socket of the throwaway server, and TCP
# on 127.0.0.1 (how rlskit reaches a database on another machine; loopback is its best case).
run_series() {  # $1 label, $2 kind
  local pipe=() seq=() p s
  for ((r = 0; r < RUNS; r++)); do
    pipe+=("$("$BIN" statements "$N" pipeline "$2" | awk '{print $2}')")
    seq+=("$("$BIN" statements "$N" sequential "$2" | awk '{print $2}')")
  done
  p=$(printf '%s\n' "${pipe[@]}" | median); s=$(printf '%s\n' "${seq[@]}" | median)
  printf '%-22s pipeline %8.4fs  sequential %8.4fs  sequential/pipeline = %sx\n' "$1 $2" "$p" "$s" "$(ratio "$s" "$p")"
}
echo "statements: $N, runs: $RUNS (median seconds of the statements alone, one transaction)"
for kind in insert select; do run_series "unix-socket" "$kind"; done
psqlt=()
for ((r = 0; r < RUNS; r++)); do
  t0=$(now_ns); psql -q -X -f "$sqlfile" >/dev/null; t1=$(now_ns)
  psqlt+=("$(awk -v d=$((t1 - t0)) 'BEGIN { print d / 1e9 }')")
done
echo "psql -f of the same $N inserts (whole process): $(printf '%s\n' "${psqlt[@]}" | median)s"
# TCP loopback
"${AS[@]}" "$PGBIN/pg_ctl" -D "$BENCH_DIR/data" -w -o "-c listen_addresses='127.0.0.1' -p 54329 -k $BENCH_DIR -c fsync=off" restart >/dev/null
export PGHOST=127.0.0.1 PGPORT=54329
for kind in insert select; do run_series "tcp-loopback" "$kind"; done
echo "(target: pipeline >= 5x faster than sequential)"
