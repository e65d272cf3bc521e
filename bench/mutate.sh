#!/usr/bin/env bash
# `rlskit mutate --builtin` as a whole process against what it replaces: one `rlskit check
# --builtin` per mutant (every mutant, equivalent ones included, as the report counts them).
# Target: mutate <= 0.1x (check x mutants); the built-in schema's mutants in under 10 s.
# Usage: bench/mutate.sh [runs]   (median of runs, default 5)
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
runs=${1:-5}
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit
work=$(mktemp -d); chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
secs() { awk -v d=$(($2 - $1)) 'BEGIN { print d / 1e9 }'; }
(cd "$work" && "$rlskit" check --builtin >/dev/null) # warm the cluster template
mut=(); chk=()
for ((r = 0; r < runs; r++)); do
  t0=$(now_ns); (cd "$work" && "$rlskit" mutate --builtin --json "$work/m.json" >/dev/null); t1=$(now_ns)
  (cd "$work" && "$rlskit" check --builtin >/dev/null); t2=$(now_ns)
  mut+=("$(secs "$t0" "$t1")"); chk+=("$(secs "$t1" "$t2")")
done
n=$(python3 -c "import json; print(len(json.load(open('$work/m.json'))['mutants']))")
m=$(printf '%s\n' "${mut[@]}" | median); c=$(printf '%s\n' "${chk[@]}" | median)
echo "runs: $runs (median seconds, whole process); $n mutants"
echo "rlskit mutate --builtin:      $m"
echo "rlskit check --builtin:       $c"
echo "mutate / (check x $n) = $(awk -v m="$m" -v c="$c" -v n="$n" 'BEGIN { printf "%.3f", m / (c * n) }')   (target <= 0.1)"
