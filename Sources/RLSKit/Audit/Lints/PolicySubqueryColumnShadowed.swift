extension Lint {
    static let policySubqueryColumnShadowed = Lint(
        id: "1013", name: "policy_subquery_column_shadowed",
        title: "Policy subquery names its own table's column where the row's was meant",
        level: .error, categories: [.security],
        description: """
            A subquery of a policy, or of a helper function the policy calls (its body read inline), \
            compares a column that both its own table and the policy's table have, written unqualified \
            or qualified with the subquery's table: `exists (select 1 from public.members where \
            members.user_id = auth.uid() and members.team_id = team_id)` in the body of a helper a \
            policy on `projects` calls, or `projects.id::text = (storage.foldername(projects.name))[1]` \
            in a policy on storage.objects (the server prints an unqualified `name` there so). SQL \
            resolves the name to the subquery's own table, so the subquery never reaches the row the \
            policy is about. When the comparison then compares a column with itself (the first \
            example), a member of any team passes for every row (ERROR); when it compares two of the \
            subquery's own columns, it is true for every row or for none, most often none, so every \
            request is denied (WARN: a broken policy, rarely an open one).
            """,
        remediation: """
            Qualify the column with the policy's table (`= <table>.team_id`, `storage.foldername(objects.name)`); \
            in a helper, pass the row's column as an argument whose name no table has.
            """,
        logic: .swift(needs: [.policies, .policyHelpers]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.appliesToAPICallers, let outer = catalog.columnNames(p.tableName, schema: p.schema) else {
                    return nil
                }
                let columns: PolicyExpression.Scan.Columns = { catalog.columnNames($0, schema: p.schema) }
                var candidates = p.expressions.map { (helpers: [String](), expression: $0) }
                candidates += catalog.inlinedExpressions(p).map { ($0.helpers, $0.expression) }
                for (helpers, e) in candidates {
                    guard
                        let hit = PolicyExpression.Scan.shadowedColumns(
                            e.nodes, table: p.table, outer: outer, columns: columns
                        ).first
                    else { continue }
                    let via =
                        helpers.isEmpty
                        ? "" : " calls \(helpers.map { $0 + "()" }.joined(separator: ", ")), whose body"
                    var metadata = p.baseMetadata.merging(["comparison": hit.comparison, "column": hit.column]) { $1 }
                    if !helpers.isEmpty {
                        metadata["helpers"] = helpers.joined(separator: ",")
                        metadata["inlined"] = e.canonical
                    }
                    let effect =
                        hit.alwaysTrue
                        ? "the comparison is always true: whoever passes the rest of the subquery passes for every row"
                        : "the subquery is true for every row or for none (most often none: every request is denied)"
                    return FindingDraft(
                        object: p.object,
                        detail:
                            "\(p.label)\(via) compares \(hit.column) in a subquery over \(hit.inner) (\(hit.comparison)): there it is \(hit.inner)'s own \(hit.column), never \(p.displayTable)'s, so \(effect)",
                        metadata: metadata,
                        fix: helpers.isEmpty
                            ? "Write the row's column as `\(AuditNames.ident(p.table)).\(AuditNames.ident(hit.column))`."
                            : nil,
                        level: hit.alwaysTrue ? nil : .warn)
                }
                return nil
            }
        },
        triggering: [
            .init(
                """
                -- Inside a helper: the row's team_id is passed, but the body compares the column with itself.
                create table public.members (user_id uuid, team_id uuid);
                create table public.tasks (id int primary key, team_id uuid);
                create function public.in_team(team uuid) returns boolean language sql stable as $$
                  select exists (select 1 from public.members m where m.user_id = auth.uid() and m.team_id = team_id)
                $$;
                alter table public.tasks enable row level security;
                create policy "team reads tasks" on public.tasks for select to authenticated using (public.in_team(team_id));
                """, reports: "policy \"team reads tasks\" on public.tasks"),
            .init(
                """
                -- A PL/pgSQL helper that never uses its parameter: team_id is members.team_id there.
                create table public.members (user_id uuid, team_id uuid);
                create table public.boards (id int primary key, team_id uuid);
                create function public.on_team(p_team uuid) returns boolean language plpgsql stable as $$
                begin
                  return exists (select 1 from public.members
                                 where members.user_id = auth.uid() and members.team_id = team_id);
                end $$;
                alter table public.boards enable row level security;
                create policy "team reads boards" on public.boards for select to authenticated using (public.on_team(team_id));
                """, reports: "policy \"team reads boards\" on public.boards"),
            .init(
                """
                -- A PL/pgSQL helper: `name` in its subquery over projects is projects.name, not the file's.
                create table public.projects (id uuid primary key, name text, owner_id uuid);
                create function public.can_open(path text) returns boolean language plpgsql stable as $$
                begin
                  return exists (select 1 from public.projects p
                                 where p.owner_id = auth.uid() and p.id::text = (storage.foldername(name))[1]);
                end $$;
                create policy "owners read files" on storage.objects for select to authenticated using (
                  bucket_id = 'projects' and public.can_open(name));
                """, reports: "policy \"owners read files\" on storage.objects"),
            .init(
                """
                -- Qualified with the subquery's table: projects.name where objects.name was meant.
                create table public.projects (id uuid primary key, name text, owner_id uuid);
                create policy "owners upload" on storage.objects for insert to authenticated with check (
                  bucket_id = 'projects' and exists (select 1 from public.projects
                    where projects.owner_id = (select auth.uid())
                      and projects.id::text = (storage.foldername(projects.name))[1]));
                """, reports: "policy \"owners upload\" on storage.objects"),
            .init(
                """
                -- An alias, and the unqualified name inside a function call.
                create table public.documents (id uuid primary key, name text, owner_id uuid);
                create policy "owners read files" on storage.objects for select to authenticated using (
                  exists (select 1 from public.documents d
                    where d.owner_id = (select auth.uid()) and d.id::text = (storage.foldername(name))[1]));
                """, reports: "policy \"owners read files\" on storage.objects"),
        ],
        nonTriggering: [
            """
            create table public.members (user_id uuid, team_id uuid);
            create table public.projects (id int primary key, team_id uuid);
            alter table public.projects enable row level security;
            create policy "members read projects" on public.projects for select to authenticated using (
              exists (select 1 from public.members
                      where members.team_id = projects.team_id and members.user_id = (select auth.uid())));
            """,
            """
            -- The folder read from the object's own name; the shared owner_id is the caller test.
            create table public.projects (id uuid primary key, name text, owner_id uuid);
            create policy "owners upload" on storage.objects for insert to authenticated with check (
              bucket_id = 'projects' and exists (select 1 from public.projects
                where projects.owner_id = (select auth.uid())
                  and projects.id::text = (storage.foldername(objects.name))[1]));
            """,
            """
            -- A join inside the subquery compares two of its own tables, and role is a constant test.
            create table public.teams (id uuid primary key, role text);
            create table public.members (user_id uuid, team_id uuid, role text);
            create table public.projects (id int primary key, team_id uuid, role text);
            alter table public.projects enable row level security;
            create policy "admins read projects" on public.projects for select to authenticated using (
              exists (select 1 from public.members join public.teams on teams.id = members.team_id
                      where members.user_id = (select auth.uid()) and members.role = 'admin'));
            """,
            """
            -- The helper's parameter has a name no table has: it is the row's column.
            create table public.members (user_id uuid, team_id uuid);
            create table public.tasks (id int primary key, team_id uuid);
            create function public.in_team(p_team uuid) returns boolean language sql stable as $$
              select exists (select 1 from public.members m where m.user_id = auth.uid() and m.team_id = p_team)
            $$;
            alter table public.tasks enable row level security;
            create policy "team reads tasks" on public.tasks for select to authenticated using (public.in_team(team_id));
            """,
        ])
}
