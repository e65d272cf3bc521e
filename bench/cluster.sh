#!/usr/bin/env bash
# Throwaway cluster start + stop (LocalCluster) vs doing it by hand: initdb + pg_ctl start -w +
# pg_ctl stop, as the same user, into a fresh temporary directory. Target: ratio <= 1.2.
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-7}
cd "$BENCH_ROOT" && swift build -c release --product rlskit-bench >/dev/null
BIN="$BENCH_ROOT/.build/release/rlskit-bench"
by_hand() {
  local d; d=$(mktemp -d); [ "$(id -u)" -eq 0 ] && chown postgres "$d"
  "${AS[@]}" "$PGBIN/initdb" -D "$d/data" -A trust -U postgres >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -l "$d/log" -w -o "-c listen_addresses='' -k $d" start >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -w stop >/dev/null
  rm -rf "$d"
}
# The same by hand with rlskit's flags: no fsync in initdb, immediate stop.
by_hand_tuned() {
  local d; d=$(mktemp -d); [ "$(id -u)" -eq 0 ] && chown postgres "$d"
  "${AS[@]}" "$PGBIN/initdb" -D "$d/data" -A trust -U postgres -N >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -l "$d/log" -w -o "-c listen_addresses='' -k $d -c fsync=off" start >/dev/null
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null
  rm -rf "$d"
}
ours=(); hand=(); tuned=()
for ((r = 0; r < RUNS; r++)); do
  t0=$(now_ns); "$BIN" cluster >/dev/null; t1=$(now_ns); by_hand; t2=$(now_ns); by_hand_tuned; t3=$(now_ns)
  ours+=("$(awk -v d=$((t1 - t0)) 'BEGIN { print d / 1e9 }')")
  hand+=("$(awk -v d=$((t2 - t1)) 'BEGIN { print d / 1e9 }')")
  tuned+=("$(awk -v d=$((t3 - t2)) 'BEGIN { print d / 1e9 }')")
done
o=$(printf '%s\n' "${ours[@]}" | median); h=$(printf '%s\n' "${hand[@]}" | median); t=$(printf '%s\n' "${tuned[@]}" | median)
echo "runs: $RUNS (median seconds, whole process)"
echo "LocalCluster start+stop:                          $o"
echo "initdb + pg_ctl start + pg_ctl stop:              $h"
echo "initdb -N + pg_ctl start + pg_ctl stop -m immediate: $t"
echo "ours / by hand       = $(ratio "$o" "$h")   (target <= 1.2)"
echo "ours / by hand tuned = $(ratio "$o" "$t")"
