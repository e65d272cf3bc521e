#!/usr/bin/env bash
# Planning a large catalog: TABLES generated tables (default 10,000) declared in one access
# file, planned by `rlskit-bench plan` (every unit and check built, none run) on a throwaway
# cluster. SHAPE=group (default: each table's rows belong to a team, with a members block) or
# owner (an owner column). Prints seconds, units, checks and the peak memory, for TABLES/2 and TABLES.
source "$(dirname "$0")/lib.sh"
TABLES=${TABLES:-10000}; SHAPE=${SHAPE:-group}
cd "$BENCH_ROOT" && swift build -c release --product rlskit-bench >/dev/null
BIN="$BENCH_ROOT/.build/release/rlskit-bench"
bench_start_cluster
gen=$(mktemp -d)
trap 'rm -rf "$gen"; bench_stop_cluster' EXIT
run() {  # $1 tables
  local db="plan_$1"
  createdb "$db"
  for f in sql/compat/*.sql; do psql -qX -v ON_ERROR_STOP=1 -d "$db" -f "$f" >/dev/null 2>&1; done
  psql -qX -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
create table public.teams (id bigint generated always as identity primary key, name text not null);
create table public.team_members (team_id bigint not null references public.teams (id),
  user_id uuid not null references auth.users (id), primary key (team_id, user_id));
alter table public.teams enable row level security;
alter table public.team_members enable row level security;
grant all on public.teams, public.team_members to authenticated, service_role;
create policy m on public.team_members for all to authenticated using (user_id = (select auth.uid()));
SQL
  # 500 tables per transaction: one block for all would exhaust the lock table.
  for ((from = 1; from <= $1; from += 500)); do
    local to=$((from + 499 < $1 ? from + 499 : $1)) key check
    if [ "$SHAPE" = group ]; then
      key="team_id bigint not null references public.teams (id)"
      check="exists (select 1 from public.team_members m where m.team_id = team_id and m.user_id = (select auth.uid()))"
    else
      key="user_id uuid not null references auth.users (id)"; check="(select auth.uid()) = user_id"
    fi
    psql -qX -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
do \$\$ begin for i in $from..$to loop
  execute format('create table public.t%s (id bigint generated always as identity primary key, $key, body text not null)', i);
  execute format('alter table public.t%s enable row level security', i);
  execute format('grant all on public.t%s to authenticated, service_role', i);
  execute format('create policy p on public.t%s for all to authenticated using ($check)', i);
end loop; end \$\$;
SQL
  done
  {
    echo "expose public"
    if [ "$SHAPE" = group ]; then
      printf 'members public.team_members\n  group team_id\n  user user_id\n  read members\n  add members\n  remove members\n  leave members\n'
      awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "table public.t%d\n  group team_id\n  read members\n  write members\n", i }'
    else
      awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "table public.t%d\n  owner user_id\n  read owner\n  write owner\n", i }'
    fi
  } > "$gen/access-$1.rls"
  printf '%6d %s tables: ' "$1" "$SHAPE"
  PGDATABASE="$db" "$BIN" plan "$gen/access-$1.rls"
}
run $((TABLES / 2))
run "$TABLES"
