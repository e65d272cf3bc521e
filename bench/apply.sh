#!/usr/bin/env bash
# `rlskit apply` of sql/ (stand-in + migrations, ledger, lock, checksums) against `psql -1 -f`
# of the same files, each on a fresh database; then the cost of a no-op re-apply.
# Whole processes, medians of RUNS. Targets: apply/psql <= 1.2, no-op <= 50 ms.
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-7}
cd "$BENCH_ROOT" && swift build -c release --product rlskit >/dev/null
BIN="$BENCH_ROOT/.build/release/rlskit"
bench_start_cluster
files=()
for f in "$BENCH_ROOT"/sql/compat/*.sql "$BENCH_ROOT"/sql/migrations/*.sql; do files+=(-f "$f"); done
ms() { awk -v d="$1" 'BEGIN { printf "%.1f", d / 1e6 }'; }
ours=(); theirs=(); noop=()
for ((r = 0; r < RUNS; r++)); do
  psql -X -q -c "create database a$r" -c "create database b$r" >/dev/null
  t0=$(now_ns); "$BIN" apply --database-url "host=$BENCH_DIR user=postgres dbname=a$r" >/dev/null; t1=$(now_ns)
  psql -X -q -v ON_ERROR_STOP=1 -1 -d "b$r" "${files[@]}" >/dev/null; t2=$(now_ns)
  "$BIN" apply --database-url "host=$BENCH_DIR user=postgres dbname=a$r" >/dev/null; t3=$(now_ns)
  ours+=("$(ms $((t1 - t0)))"); theirs+=("$(ms $((t2 - t1)))"); noop+=("$(ms $((t3 - t2)))")
done
o=$(printf '%s\n' "${ours[@]}" | median); p=$(printf '%s\n' "${theirs[@]}" | median); n=$(printf '%s\n' "${noop[@]}" | median)
echo "runs: $RUNS (median milliseconds, whole process)"
echo "rlskit apply (fresh database):  $o"
echo "psql -1 -f (same files):        $p"
echo "rlskit apply, nothing to do:    $n   (target <= 50)"
echo "apply / psql = $(ratio "$o" "$p")   (target <= 1.2)"
