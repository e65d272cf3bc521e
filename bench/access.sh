#!/usr/bin/env bash
# Reading a large access file: BLOCKS generated table blocks (default 10,000; owner rows, a role
# and a membership table among them), parsed by `rlskit-bench parse` before any connection.
# Prints the median of RUNS runs. Target: linear (20,000 blocks take about twice as long).
source "$(dirname "$0")/lib.sh"
BLOCKS=${BLOCKS:-10000}; RUNS=${RUNS:-5}
cd "$BENCH_ROOT" && swift build -c release --product rlskit-bench >/dev/null
BIN="$BENCH_ROOT/.build/release/rlskit-bench"
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
generate() {  # $1 blocks, $2 file
  {
    echo "expose public"
    echo "role admin"
    echo "  claim app_metadata.role = admin"
    echo "members public.team_members"
    echo "  group team_id"
    echo "  user user_id"
    echo "  role role"
    echo "  roles owner member"
    echo "  read members"
    echo "  add members with role owner"
    echo "  remove members with role owner"
    echo "  leave members"
    echo "  change-role members with role owner"
    awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) {
      if (i % 10 == 0) printf "table public.g%d\n  group team_id\n  read members\n  write members with role owner\n", i
      else printf "table public.t%d\n  owner user_id\n  read owner or admin\n  write owner\n  protect is_admin, plan\n  seed body = '"'"'note {n}'"'"'\n", i } }'
  } > "$2"
}
run() {  # $1 blocks
  generate "$1" "$gen/access-$1.rls"
  local times=()
  for ((r = 0; r < RUNS; r++)); do times+=("$("$BIN" parse "$gen/access-$1.rls" | awk '{print $2}')"); done
  printf '%6d blocks (%s lines): parse %8.4fs (median of %d)\n' "$1" "$(wc -l < "$gen/access-$1.rls")" \
    "$(printf '%s\n' "${times[@]}" | median)" "$RUNS"
}
run $((BLOCKS / 2))
run "$BLOCKS"
