extension Lint {
    static let multiplePermissivePolicies = Lint(
        id: "0006", name: "multiple_permissive_policies", title: "Several permissive policies for one role and action",
        level: .warn, categories: [.performance],
        description: """
            A table in an exposed schema has more than one permissive policy for the same role and \
            action. PostgreSQL evaluates every one of them for every row and ORs the results, which is \
            slower than one policy and harder to review.
            """,
        remediation: """
            Check the intent first: permissive policies are ORed, so the widest one decides what the role \
            gets. If every policy is intended, merge them into one policy per role and action \
            (`using (a or b)`); a policy meant to narrow access must be `as restrictive` instead.
            """,
        logic: .swift(needs: [.policies, .functions]) { catalog in
            let helpers = callerHelpers(catalog)
            // PolicyRow is a class: keeping it in the dictionary costs one reference.
            var groups: [String: (policy: PolicyRow, role: String, action: String, all: [PolicyRow])] = [:]
            for p in catalog.policies where p.permissive && p.reachedByAPI(catalog) {
                let actions = p.command == "ALL" ? ["SELECT", "INSERT", "UPDATE", "DELETE"] : [p.command]
                for role in p.apiRoles {
                    for action in actions {
                        let key = "\(p.tableName)\u{1F}\(role)\u{1F}\(action)"
                        groups[key, default: (p, role, action, [])].all.append(p)
                    }
                }
            }
            return groups.values.filter { $0.all.count > 1 }.map { g in
                let rows = g.all.sorted { $0.name < $1.name }
                let names = rows.map { AuditNames.policy($0.name) }.joined(separator: ", ")
                return FindingDraft(
                    object: AuditObject(schema: g.policy.schema, name: g.policy.table, kind: "table"),
                    detail:
                        "table \(g.policy.displayTable) has \(rows.count) permissive \(g.action) policies for role \(g.role) (\(names)); each is evaluated for every row",
                    metadata: ["role": g.role, "action": g.action, "policies": names],
                    key: "\(g.role)/\(g.action)", fix: fix(rows, role: g.role, action: g.action, helpers: helpers))
            }
        },
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid, published bool);
                alter table public.notes enable row level security;
                create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
                create policy "published notes" on public.notes for select using (published);
                """, reports: "table public.notes"),
            .init(
                """
                -- The second policy compares rows with the caller through a helper.
                create table public.members (team uuid, user_id uuid);
                alter table public.members enable row level security;
                create function public.is_member(t uuid) returns boolean language sql stable security definer
                  set search_path = '' as $$ select exists (select 1 from public.members m
                    where m.team = t and m.user_id = auth.uid()) $$;
                create policy "own rows" on public.members for select to authenticated using (user_id = (select auth.uid()));
                create policy "teammates" on public.members for select to authenticated using (public.is_member(team));
                """, reports: "table public.members"),
            .init(
                """
                -- A member helper in a private schema compares the row; the claim test does not.
                create schema if not exists private;
                create table public.crew (org_id uuid, user_id uuid);
                create function private.in_crew(o uuid) returns boolean language sql stable security definer
                  set search_path = '' as $$ select exists (select 1 from public.crew
                    where org_id = o and user_id = (select auth.uid())) $$;
                create table public.projects (id int primary key, org_id uuid);
                alter table public.projects enable row level security;
                create policy "crew projects" on public.projects for select to authenticated
                  using ((select private.in_crew(org_id)));
                create policy "support reads" on public.projects for select to authenticated
                  using ((select auth.jwt() ->> 'user_role') = 'support');
                """, reports: "table public.projects"),
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid, published bool);
            alter table public.notes enable row level security;
            create policy "own or published notes" on public.notes for select to authenticated
              using (published or owner = (select auth.uid()));
            create policy "published notes" on public.notes for select to anon using (published);
            """
        ])

    /// Merging ORed policies keeps whatever the widest one lets through: name it (a policy that
    /// never compares a row with the caller, directly or through a helper that asks who the
    /// caller is) so the user checks the intent before merging.
    static func fix(_ rows: [PolicyRow], role: String, action: String, helpers: Set<String>) -> String {
        let open = rows.filter { p in
            // A claim compared with a constant (`auth.jwt() ->> 'role' = 'support'`) is no row's.
            !p.expressions.flatMap(\.bindings).contains { !PolicyExpression.isConstant($0) }
                && ![p.using, p.withCheck].contains { text in
                    guard let text else { return false }
                    let body = FunctionBody(text)
                    return body.words.indices.contains { helpers.contains(body.key($0)) && body.key($0 + 1) == "(" }
                }
        }
        let merge = "merge them into one \(action.lowercased()) policy for \(role) (`using (a or b)`)"
        guard !open.isEmpty, open.count < rows.count else {
            return
                "Check the intent first: these policies are ORed, so each widens the others for \(role). If every one is intended, \(merge); a policy meant to narrow access must be `as restrictive` instead."
        }
        let wide = open.map { AuditNames.policy($0.name) }.joined(separator: ", ")
        let others = rows.filter { r in !open.contains { $0 === r } }.map { AuditNames.policy($0.name) }.joined(
            separator: ", ")
        return
            "Check the intent first: \(wide) does not compare rows with the caller, and policies are ORed, so it widens what \(others) allows for \(role). If that is intended, \(merge); if it was meant to narrow access, make it `as restrictive`."
    }
}
