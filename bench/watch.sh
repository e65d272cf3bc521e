#!/usr/bin/env bash
# `rlskit check --watch`: from saving a one-line policy change in the newest migration to the next
# summary, on the built-in schema (its tests) and on bench/team.sh's 20-table team schema (its
# access file). The watch keeps one server; each run clones the database from the template that
# holds the unchanged migrations and applies only the changed file.
# Targets: <= 0.3 s (built-in), <= 1 s (team schema).
# Usage: bench/watch.sh [runs]   (median of runs, default 5)
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
runs=${1:-5}
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit
work=$(mktemp -d); chmod 755 "$work"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

summaries() {
  local n; n=$(grep -cE ' in [0-9.]+ s$' "$1" 2>/dev/null)
  echo "${n:-0}"
}
# Waits until the log has more than $2 summaries (at most 120 s).
wait_for() {
  local k=0
  while [ "$(summaries "$1")" -le "$2" ]; do
    sleep 0.01
    k=$((k + 1))
    [ "$k" -lt 12000 ] || { echo "no summary in $1:" >&2; tail -5 "$1" >&2; exit 1; }
  done
}

# watch NAME TABLE: runs in $work/NAME, changes a policy on TABLE in the newest migration, the
# file a developer is writing.
watch() {
  local dir=$work/$1 table=$2 log=$work/$1.log last times=()
  last=$dir/sql/migrations/9999_watch.sql
  printf -- '-- the policy being written\ncreate policy bench_watch on %s for select to authenticated using (false);\n' "$table" >"$last"
  (cd "$dir" && RLSKIT_TRACE=1 exec "$rlskit" check --watch >"$log" 2>&1) &
  pid=$!
  wait_for "$log" 0
  for ((i = 1; i <= runs; i++)); do
    local before; before=$(summaries "$log")
    sleep 0.3
    local t0; t0=$(now_ns)
    # One line changed: the policy's condition.
    sed -i "s/^create policy bench_watch .*/create policy bench_watch on $table for select to authenticated using ($((i % 2 == 0)) = 1);/" "$last"
    wait_for "$log" "$before"
    times+=("$(awk -v d=$(($(now_ns) - t0)) 'BEGIN { print d / 1e9 }')")
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  local checks; checks=$(grep -oE '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  echo "$1 ($checks): save → summary median $(printf '%s\n' "${times[@]}" | median) s (runs: ${times[*]})"
  # Where the last run's time went: its phases, and the template steps inside apply.
  echo "  last run: $(grep -E '^ *[✓✗] (database|apply|test|audit) ' "$log" | tail -4 | awk '{ printf "%s %s ms, ", $2, $(NF-1) }')"
  echo "  inside apply: $(grep 'rlskit: templates' "$log" | tail -4 | sed 's/rlskit: templates //' | paste -sd, -)"
}

mkdir -p "$work/builtin/sql"
cp -r sql/migrations sql/tests "$work/builtin/sql/"
mkdir -p "$work/team/sql/migrations" "$work/team/sql/tests"
TEAM_EXPORT="$work/team" bash bench/team.sh >/dev/null 2>&1
mv "$work/team/schema.sql" "$work/team/sql/migrations/0001_team.sql"
mv "$work/team/team.rls" "$work/team/sql/tests/team.rls"

echo "runs: $runs (median seconds from the file's save to the next summary line)"
watch builtin public.posts
watch team public.projects
echo "targets: builtin <= 0.3 s, team <= 1 s"
