extension Lint {
    static let multiplePermissivePolicies = Lint(
        id: "0006", name: "multiple_permissive_policies", title: "Several permissive policies for one role and action",
        level: .warn, categories: [.performance],
        description: """
        A table in an exposed schema has more than one permissive policy for the same role and \
        action. PostgreSQL evaluates every one of them for every row and ORs the results, which is \
        slower than one policy and harder to review.
        """,
        remediation: "Merge them into one policy per role and action (`using (a or b)`).",
        logic: .swift(needs: [.policies]) { catalog in
            // PolicyRow is a class: keeping it in the dictionary costs one reference.
            var groups: [String: (policy: PolicyRow, role: String, action: String, names: [String])] = [:]
            for p in catalog.policies where p.permissive && p.inExposed(catalog) {
                let actions = p.command == "ALL" ? ["SELECT", "INSERT", "UPDATE", "DELETE"] : [p.command]
                for role in p.apiRoles {
                    for action in actions {
                        let key = "\(p.tableName)\u{1F}\(role)\u{1F}\(action)"
                        groups[key, default: (p, role, action, [])].names.append(p.name)
                    }
                }
            }
            return groups.values.filter { $0.names.count > 1 }.map { g in
                let names = g.names.sorted().map(AuditNames.policy).joined(separator: ", ")
                return FindingDraft(object: AuditObject(schema: g.policy.schema, name: g.policy.table, kind: "table"),
                                    detail: "table \(g.policy.displayTable) has \(g.names.count) permissive \(g.action) policies for role \(g.role) (\(names)); each is evaluated for every row",
                                    metadata: ["role": g.role, "action": g.action, "policies": names],
                                    key: "\(g.role)/\(g.action)")
            }
        },
        triggering: [.init("""
        create table public.notes (id int primary key, owner uuid, published bool);
        alter table public.notes enable row level security;
        create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
        create policy "published notes" on public.notes for select using (published);
        """, reports: "table public.notes")],
        nonTriggering: ["""
        create table public.notes (id int primary key, owner uuid, published bool);
        alter table public.notes enable row level security;
        create policy "own or published notes" on public.notes for select to authenticated
          using (published or owner = (select auth.uid()));
        create policy "published notes" on public.notes for select to anon using (published);
        """])
}
