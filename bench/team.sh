#!/usr/bin/env bash
# `rlskit test` on a generated 20-table team schema vs a single-statement SQL floor, on one throwaway cluster.
# Schema: teams, team_members (enum role owner/admin/member) and 18 tables with team_id; policies call
# SECURITY DEFINER helpers in a private schema; three tables also have an owner column (created_by).
#   rlskit: the access file below (the group matrix is generated from it);
#   floor: the same checks (same statements, same actors' settings, each in a subtransaction) in one DO
#   block, sign-up and seeding done once.
# Usage: bench/team.sh [runs]   (median of `runs`, default 3). Target: rlskit <= 1.3x the floor.
# TEAM_EXPORT=DIR writes the schema (DIR/schema.sql) and the access file (DIR/team.rls) and stops
# (bench/watch.sh checks them).
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
runs=${1:-3}

echo "building rlskit (release)…" >&2
swift build -c release --product rlskit >/dev/null
rlskit=$(swift build -c release --show-bin-path)/rlskit
gen=$(mktemp -d)
if [ -z "${TEAM_EXPORT:-}" ]; then
  bench_start_cluster
  trap 'rm -rf "$gen"; bench_stop_cluster' EXIT
  createdb bench
  for f in sql/compat/*.sql sql/migrations/*.sql; do psql -qX -v ON_ERROR_STOP=1 -d bench -f "$f" >/dev/null 2>&1; done
else
  trap 'rm -rf "$gen"' EXIT
fi

names=(projects tasks comments documents invoices labels milestones webhooks api_keys channels messages files
  events notes boards cards reports team_settings)
# kind per table: m = members write, members with role owner/admin delete; w = only owner/admin write;
# o = owner column: members insert their own rows, the owner updates, the owner or a team owner deletes.
kind() { case $1 in comments | messages | notes) echo o ;; invoices | webhooks | api_keys) echo w ;; *) echo m ;; esac; }

# Schema.
{
  cat <<'SQL'
create type public.team_role as enum ('owner', 'admin', 'member');
create table public.teams (id uuid primary key default gen_random_uuid(), name text not null,
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade);
create table public.team_members (team_id uuid not null references public.teams (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role public.team_role not null default 'member', joined_at timestamptz not null default now(),
  primary key (team_id, user_id));
create schema app_private;
grant usage on schema app_private to authenticated;
create function app_private.is_member(t uuid) returns boolean language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.team_members m where m.team_id = t and m.user_id = (select auth.uid())) $$;
create function app_private.has_role(t uuid, rs public.team_role[]) returns boolean language sql stable security definer
  set search_path = '' as $$
  select exists (select 1 from public.team_members m where m.team_id = t and m.user_id = (select auth.uid()) and m.role = any (rs)) $$;
create function app_private.add_creator() returns trigger language plpgsql security definer set search_path = '' as $$
  begin insert into public.team_members (team_id, user_id, role) values (new.id, new.created_by, 'owner'); return new; end $$;
create trigger teams_creator after insert on public.teams for each row execute function app_private.add_creator();
alter table public.teams enable row level security;
alter table public.team_members enable row level security;
grant select, insert, update, delete on public.teams, public.team_members to anon, authenticated;
grant all on public.teams, public.team_members to service_role;
create policy teams_read on public.teams for select to authenticated using (app_private.is_member(id));
create policy teams_create on public.teams for insert to authenticated with check (created_by = (select auth.uid()));
create policy teams_edit on public.teams for update to authenticated
  using (app_private.has_role(id, '{owner,admin}')) with check (app_private.has_role(id, '{owner,admin}'));
create policy teams_drop on public.teams for delete to authenticated using (app_private.has_role(id, '{owner}'));
create policy members_read on public.team_members for select to authenticated using (app_private.is_member(team_id));
create policy members_add on public.team_members for insert to authenticated
  with check (app_private.has_role(team_id, '{owner,admin}'));
create policy members_role on public.team_members for update to authenticated
  using (app_private.has_role(team_id, '{owner}') and user_id <> (select auth.uid()))
  with check (app_private.has_role(team_id, '{owner}'));
create policy members_remove on public.team_members for delete to authenticated
  using ((app_private.has_role(team_id, '{owner}') and user_id <> (select auth.uid()))
    or (user_id = (select auth.uid()) and role <> 'owner'));
SQL
  for t in "${names[@]}"; do
    k=$(kind "$t")
    uniq=""; [ "$t" = team_settings ] && uniq=" unique"
    owner=""; [ "$k" = o ] && owner=", created_by uuid not null default auth.uid() references auth.users (id) on delete cascade"
    cat <<SQL
create table public.$t (id bigint generated always as identity primary key,
  team_id uuid not null$uniq references public.teams (id) on delete cascade, title text not null, body text,
  created_at timestamptz not null default now()$owner);
alter table public.$t enable row level security;
grant select, insert, update, delete on public.$t to anon, authenticated;
grant all on public.$t to service_role;
SQL
    if [ "$k" = o ]; then
      echo "create policy r on public.$t for select to authenticated using (app_private.is_member(team_id) or created_by = (select auth.uid()));"
    else
      echo "create policy r on public.$t for select to authenticated using (app_private.is_member(team_id));"
    fi
    case $k in
      m) cat <<SQL
create policy i on public.$t for insert to authenticated with check (app_private.is_member(team_id));
create policy u on public.$t for update to authenticated using (app_private.is_member(team_id)) with check (app_private.is_member(team_id));
create policy d on public.$t for delete to authenticated using (app_private.has_role(team_id, '{owner,admin}'));
SQL
        ;;
      w) cat <<SQL
create policy i on public.$t for insert to authenticated with check (app_private.has_role(team_id, '{owner,admin}'));
create policy u on public.$t for update to authenticated
  using (app_private.has_role(team_id, '{owner,admin}')) with check (app_private.has_role(team_id, '{owner,admin}'));
create policy d on public.$t for delete to authenticated using (app_private.has_role(team_id, '{owner,admin}'));
SQL
        ;;
      o) cat <<SQL
create policy i on public.$t for insert to authenticated
  with check (app_private.is_member(team_id) and created_by = (select auth.uid()));
create policy u on public.$t for update to authenticated
  using (created_by = (select auth.uid())) with check (app_private.is_member(team_id) and created_by = (select auth.uid()));
create policy d on public.$t for delete to authenticated
  using (created_by = (select auth.uid()) or app_private.has_role(team_id, '{owner}'));
SQL
        ;;
    esac
  done
} > "$gen/schema.sql"
[ -n "${TEAM_EXPORT:-}" ] || psql -qX -v ON_ERROR_STOP=1 -d bench -f "$gen/schema.sql" >/dev/null

# Access file.
{
  cat <<'RLS'
members public.team_members
  group team_id
  user user_id
  role role
  roles owner admin member
  read members
  add members with role owner, admin
  remove members with role owner
  leave members
  change-role members with role owner

table public.teams
  group id
  read members
  insert signed-in
  update members with role owner, admin
  delete members with role owner
RLS
  for t in "${names[@]}"; do
    printf '\ntable public.%s\n  group team_id\n' "$t"
    [ "$(kind "$t")" = o ] || printf '  read members\n'
    case $(kind "$t") in
      m) printf '  insert members\n  update members\n  delete members with role owner, admin\n' ;;
      w) printf '  insert members with role owner, admin\n  update members with role owner, admin\n  delete members with role owner, admin\n' ;;
      o) printf '  owner created_by\n  read members or owner\n  insert owner and members\n  update owner\n  delete owner or members with role owner\n' ;;
    esac
  done
} > "$gen/team.rls"
if [ -n "${TEAM_EXPORT:-}" ]; then cp "$gen/schema.sql" "$gen/team.rls" "$TEAM_EXPORT"/; exit 0; fi

# The floor's actors: G1's owner, admin and member, G2's owner, a user in no team, anon.
O=10000000-0000-4000-8000-000000000001 AD=10000000-0000-4000-8000-000000000002
ME=10000000-0000-4000-8000-000000000003 O2=20000000-0000-4000-8000-000000000001
OUT=30000000-0000-4000-8000-000000000001
G1="'a1000000-0000-4000-8000-000000000001'::uuid" G2="'a2000000-0000-4000-8000-000000000002'::uuid"
exp=$(($(date +%s) + 3600))
claims() {
  if [ "$1" = anon ]; then echo '{"role":"anon","iss":"supabase"}'; return; fi
  printf '{"aud":"authenticated","role":"authenticated","sub":"%s","email":"u-%s@example.test","exp":%s,"iat":%s,"is_anonymous":false,"aal":"aal1","app_metadata":{"provider":"email","providers":["email"]},"user_metadata":{}}' \
    "$1" "$1" "$exp" "$((exp - 3600))"
}
# As rlskit impersonates: role and claims set, the legacy per-claim settings cleared.
as() {
  local role=authenticated; [ "$1" = anon ] && role=anon
  printf "select set_config('role', '%s', true), set_config('request.jwt.claims', '%s', true), set_config('request.jwt.claim.sub', '', true), set_config('request.jwt.claim.role', '', true), set_config('request.jwt.claim.email', '', true), set_config('request.jwt.claim', '', true), set_config('storage.operation', '', true), set_config('storage.allow_delete_query', '', true)" \
    "$role" "$(claims "$1")"
}
uid() { case $1 in anon) echo "$O" ;; *) echo "$1" ;; esac; }
# What PostgREST sets for the request, as rlskit sends it per check (reads READ ONLY).
req() {
  local m t; t=$(grep -o 'public\.[a-z_]*' <<< "$1" | head -1)
  case ${1%% *} in select) m=GET ;; insert) m=POST ;; update) m=PATCH ;; *) m=DELETE ;; esac
  local h='{"accept":"application/json","content-type":"application/json"}' ro=""
  if [ $m = GET ]; then h='{"accept":"application/json"}'; ro=", set_config('transaction_read_only', 'on', true)"; fi
  printf "%s" ", set_config('request.method', '$m', true), set_config('request.path', '/${t#public.}', true), set_config('request.headers', '$h', true), set_config('request.cookies', '{}', true)$ro"
}

# Checks as (expectation|actor|setup|statement); expectations: true, vis, hid, ok (written), no (nothing written).
yn() { if [ "$1" = 1 ]; then echo "$2"; else echo "$3"; fi; }
table_checks() {
  local t=$1 k; k=$(kind "$t")
  local g1="team_id = $G1" sel="select count(*) from public.$t where" clear=""
  [ "$t" = team_settings ] && clear="delete from public.$t where team_id = $G1"
  echo "true|admin||select relrowsecurity from pg_class where oid = 'public.$t'::regclass"
  for a in "$O" "$AD" "$ME" "$O2" "$OUT" anon; do
    local member=0 top=0 self=0; case $a in "$O" | "$AD" | "$ME") member=1 ;; esac
    case $a in "$O" | "$AD") top=1 ;; esac; [ "$a" = "$ME" ] && self=1
    local cols="team_id, title" vals="$G1, 'new'"
    [ "$k" = o ] && cols+=", created_by" && vals+=", '$(uid "$a")'::uuid"
    echo "$(yn $member vis hid)|$a||$sel $g1"
    case $k in m | o) w=$member ;; w) w=$top ;; esac
    echo "$(yn "$w" ok no)|$a|$clear|insert into public.$t ($cols) values ($vals)"
    case $k in m) w=$member ;; w) w=$top ;; o) w=$self ;; esac
    echo "$(yn "$w" ok no)|$a||update public.$t set title = title where $g1"
    case $k in m | w) w=$top ;; o) w=$self; [ "$a" = "$O" ] && w=1 ;; esac
    echo "$(yn "$w" ok no)|$a||delete from public.$t where $g1"
  done
  echo "hid|$O||$sel team_id = $G2"
  echo "no|$O||update public.$t set team_id = $G2 where $g1"
  echo "no|$O2|$clear|update public.$t set team_id = $G1 where team_id = $G2"
  [ "$k" = o ] && echo "no|$ME||update public.$t set created_by = '$O' where $g1"
  return 0
}
teams_checks() {
  echo "true|admin||select relrowsecurity from pg_class where oid = 'public.teams'::regclass"
  for a in "$O" "$AD" "$ME" "$O2" "$OUT" anon; do
    local member=0 top=0; case $a in "$O" | "$AD" | "$ME") member=1 ;; esac; case $a in "$O" | "$AD") top=1 ;; esac
    echo "$(yn $member vis hid)|$a||select count(*) from public.teams where id = $G1"
    echo "$(yn "$([ "$a" = anon ] || echo 1)" ok no)|$a||insert into public.teams (id, name) values (gen_random_uuid(), 'new')"
    echo "$(yn $top ok no)|$a||update public.teams set name = name where id = $G1"
    echo "$(yn "$([ "$a" = "$O" ] && echo 1)" ok no)|$a||delete from public.teams where id = $G1"
  done
}
members_checks() {
  local m=public.team_members
  mem() { echo "team_id = $1 and user_id = '$2'"; }
  join() { echo "insert into $m (team_id, user_id, role) values ($1, '$2', '$3'::public.team_role)"; }
  echo "true|admin||select relrowsecurity from pg_class where oid = '$m'::regclass"
  for a in "$O" "$AD" "$ME" "$O2" "$OUT" anon; do
    local target=$O member=0; [ "$a" = "$O" ] && target=$ME; case $a in "$O" | "$AD" | "$ME") member=1 ;; esac
    echo "$(yn $member vis hid)|$a||select count(*) from $m where $(mem "$G1" "$target")"
  done
  echo "no|$OUT||$(join "$G1" "$OUT" member)"
  echo "no|$OUT||$(join "$G1" "$OUT" owner)"
  echo "no|$O2||$(join "$G1" "$O2" member)"
  for a in "$O" "$AD" "$ME" anon; do
    echo "$(yn "$(case $a in "$O" | "$AD") echo 1 ;; esac)" ok no)|$a||$(join "$G1" "$OUT" member)"
  done
  echo "ok|$O||delete from $m where $(mem "$G1" "$ME")"
  echo "no|$ME||delete from $m where $(mem "$G1" "$O")"
  for a in "$O2" anon; do echo "no|$a||delete from $m where $(mem "$G1" "$ME")"; done
  echo "ok|$ME||delete from $m where $(mem "$G1" "$ME")"
  echo "no|$ME||update $m set team_id = $G2 where $(mem "$G1" "$ME")"
  echo "no|$ME||update $m set role = 'owner'::public.team_role where $(mem "$G1" "$ME")"
  echo "ok|$O||update $m set role = 'admin'::public.team_role where $(mem "$G1" "$ME")"
  for a in "$O2" anon; do echo "no|$a||update $m set role = 'admin'::public.team_role where $(mem "$G1" "$ME")"; done
}
all_checks() { members_checks; teams_checks; for t in "${names[@]}"; do table_checks "$t"; done; }

# Floor: sign-up and seeding once (as rlskit seeds: teams created with their owner's claims, the
# creator trigger making the owner a member), then every check in its own subtransaction.
{
  echo "begin; do \$floor\$ declare v bigint; ok int := 0; begin"
  echo "perform set_config('role', 'supabase_auth_admin', true);"
  echo "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at) values"
  sep=""
  for u in "$O" "$AD" "$ME" "$O2" "$OUT"; do
    printf "%s ('00000000-0000-0000-0000-000000000000', '%s', 'authenticated', 'authenticated', 'u-%s@example.test', '', now(), '{\"provider\":\"email\",\"providers\":[\"email\"]}', '{}', now(), now())" "$sep" "$u" "$u"
    sep=$',\n'
  done
  echo ";"
  for pair in "$G1@$O" "$G2@$O2"; do
    echo "perform set_config('request.jwt.claims', '$(claims "${pair#*@}")', true), set_config('role', 'service_role', true);"
    echo "insert into public.teams (id, name) values (${pair%%@*}, 'team');"
  done
  echo "perform set_config('request.jwt.claims', '', true);"
  echo "insert into public.team_members (team_id, user_id, role) values ($G1, '$AD', 'admin'), ($G1, '$ME', 'member');"
  for t in "${names[@]}"; do
    extra="" e1="" e2=""; [ "$(kind "$t")" = o ] && extra=", created_by" e1=", '$ME'" e2=", '$O2'"
    echo "insert into public.$t (team_id, title$extra) values ($G1, 'a'$e1), ($G2, 'b'$e2);"
  done
  echo "perform set_config('role', 'none', true);"
  while IFS='|' read -r want actor setup sql; do
    echo "begin"
    [ -n "$setup" ] && echo "  execute \$q\$ $setup \$q\$;"
    [ "$actor" = admin ] || echo "  $(as "$actor" | sed 's/^select /perform /')$(req "$sql");"
    case $want in
      true) echo "  execute \$q\$ select ($sql)::int \$q\$ into v; ok := ok + v;" ;;
      vis | hid) echo "  execute \$q\$ $sql \$q\$ into v; ok := ok + (v $([ "$want" = vis ] && echo '>' || echo '=') 0)::int;" ;;
      ok | no) echo "  execute \$q\$ $sql \$q\$; get diagnostics v = row_count; ok := ok + (v $([ "$want" = ok ] && echo '>' || echo '=') 0)::int;" ;;
    esac
    echo "  raise exception using errcode = 'RB001';"
    echo "exception when sqlstate 'RB001' then null; when insufficient_privilege then ok := ok + $(case $want in hid | no) echo 1 ;; *) echo 0 ;; esac); end;"
  done < <(all_checks)
  echo "raise notice 'floor: % of % checks passed', ok, $(all_checks | wc -l); end \$floor\$; rollback;"
} > "$gen/floor.sql"

url="host=$PGHOST dbname=bench user=postgres"
time_ms() { local s; s=$(now_ns); "$@" >"$gen/out" 2>&1 || { cat "$gen/out" >&2; echo "failed: $*" >&2; exit 1; }; echo $(( ($(now_ns) - s) / 1000000 )); }
floor_cmd() { psql -qX -v ON_ERROR_STOP=1 -d bench -f "$gen/floor.sql"; }

# Sanity: both see every check pass, and the same number of them.
"$rlskit" test --database-url "$url" --format tap "$gen/team.rls" > "$gen/r.tap" || { grep '^not ok' -A4 "$gen/r.tap" | head -40 >&2; exit 1; }
passed=$(grep -c '^ok ' "$gen/r.tap")
echo "rlskit: $passed ok, $(grep -c '^not ok' "$gen/r.tap" || true) not ok" >&2
floor_cmd > "$gen/floor.out" 2>&1 || { head -c 600 "$gen/floor.out" >&2; exit 1; }; grep -o "floor: .*" "$gen/floor.out" >&2
floor_ok=$(grep -o "floor: [0-9]* of [0-9]*" "$gen/floor.out")
fpassed=${floor_ok#floor: }; fpassed=${fpassed%% of*}; ftotal=${floor_ok##* of }
[ "$fpassed" = "$ftotal" ] || { echo "the floor's own checks do not all pass: $floor_ok" >&2; exit 1; }
# rlskit's matrix has grown beyond the checks the floor spells out (read-only reads, request
# settings, M, a user in both groups…): the ratio is then taken per check.
[ "$ftotal" = "$passed" ] || echo "note: rlskit runs $passed checks, the floor $ftotal: ratios are per check" >&2

# Runs alternate (rlskit, floor, rlskit, …) so that a machine's drift hits both alike; the ratio
# quoted is the median of the pairs' ratios.
for _ in $(seq 1 "$runs"); do
  r=$(time_ms "$rlskit" test --database-url "$url" --format tap "$gen/team.rls")
  f=$(time_ms floor_cmd)
  echo "$r" >> "$gen/rlskit.ms"; echo "$f" >> "$gen/floor.ms"
  ratio "$((r * ftotal))" "$((f * passed))" >> "$gen/ratio"; echo >> "$gen/ratio"
done
r=$(median < "$gen/rlskit.ms"); f=$(median < "$gen/floor.ms")
printf '%-28s %8s ms  (%.3f ms/check)\n' "rlskit test" "$r" "$(awk -v a="$r" -v c="$passed" 'BEGIN{print a/c}')"
printf '%-28s %8s ms  (%.3f ms/check)\n' "single-statement SQL floor" "$f" "$(awk -v a="$f" -v c="$ftotal" 'BEGIN{print a/c}')"
echo "rlskit / floor (per check) = $(grep . "$gen/ratio" | median)x, median of $runs paired runs, range $(grep . "$gen/ratio" | sort -g | sed -n '1p;$p' | paste -sd-) (target <= 1.3)"
