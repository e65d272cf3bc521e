/// Every mutant of a catalog, most telling first within each policy. Mutants known to behave
/// as the original are marked so (with the reason) instead of left to survive.
enum MutantGenerator {
    typealias Policy = MutationCatalog.Policy

    static func mutants(_ catalog: MutationCatalog) -> [Mutant] {
        var out: [Mutant] = []
        for p in catalog.policies {
            let table = catalog.tables.first { $0.schema == p.schema && $0.name == p.table }
            out += policyMutants(p, in: catalog, table: table)
        }
        for t in catalog.tables {
            let policies = catalog.policies.filter { $0.schema == t.schema && $0.table == t.name }
            // storage.objects is the platform's: its switch and grants are the project's only when it writes policies there.
            if t.schema == "storage", policies.isEmpty { continue }
            out += tableMutants(t, policies: policies)
        }
        return out + functionMutants(catalog.functions)
    }

    /// The plain column a policy compares with the caller (`author_id`), if any.
    static func ownerColumn(_ p: Policy) -> String? {
        [p.using, p.withCheck].compactMap { $0 }.lazy.compactMap {
            PolicyExpression($0).rowBindings.sorted().first { b in
                b.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            }
        }.first
    }

    static func isTrue(_ e: String?) -> Bool { e.map { PolicyExpression($0).isTrue } ?? false }

    /// Another permissive policy for the same command and (at least) the same roles that is
    /// already `true` for `clause`: weakening this one changes nothing.
    static func redundancy(_ p: Policy, _ clause: MutationClause, in catalog: MutationCatalog) -> String? {
        guard p.permissive else { return nil }
        for q in catalog.policies
        where q.schema == p.schema && q.table == p.table && q.name != p.name && q.permissive
            && (q.command == p.command || q.command == "ALL")
            && (q.roles.contains("public") || Set(q.roles).isSuperset(of: p.roles))
        {
            let e = clause == .using ? q.using : (q.withCheck ?? (q.command == "INSERT" ? nil : q.using))
            if isTrue(e) {
                return "policy \(SQL.display(q.name, always: true)) already allows every row for these roles"
            }
        }
        return nil
    }

    /// The Storage API deletes and moves with `… RETURNING`, so every row it touches must pass
    /// the SELECT policies too: weakening an UPDATE or DELETE policy of storage.objects whose
    /// test a SELECT policy repeats changes nothing through it.
    static func masked(_ p: Policy, _ clause: MutationClause, in catalog: MutationCatalog) -> String? {
        guard p.schema == "storage", p.table == "objects", p.command == "UPDATE" || p.command == "DELETE",
            let e = p.expression(clause)
        else { return nil }
        let canonical = PolicyExpression(e).canonical
        for q in catalog.policies
        where q.schema == p.schema && q.table == p.table && q.permissive
            && (q.command == "SELECT" || q.command == "ALL")
            && (q.roles.contains("public") || Set(q.roles).isSuperset(of: p.roles))
        {
            if let u = q.using, PolicyExpression(u).canonical == canonical {
                return
                    "the Storage API \(p.command == "DELETE" ? "deletes" : "moves") with RETURNING, so SELECT policy "
                    + "\(SQL.display(q.name, always: true)) applies the same test"
            }
        }
        return nil
    }

    /// A top-level conjunct compares something with auth.uid(): never true for anon, who has none.
    static func requiresUserId(_ e: String) -> Bool {
        PolicyExpression.Scan.conjuncts(PolicyExpression.Parser.parse(e)).contains { part in
            var p = part
            while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
            return PolicyExpression.Scan.binding(p) != nil && PolicyExpression.Render.nodes(p).contains("auth.uid()")
        }
    }

    static func policyMutants(_ p: Policy, in catalog: MutationCatalog, table: MutationCatalog.Table?) -> [Mutant] {
        var out: [Mutant] = []
        func add(
            _ kind: String, _ mutation: String, apply: [String], undo: [String], equivalent: String? = nil,
            _ effect: KillHint.Effect, newRow: Bool = false
        ) {
            let owner = ownerColumn(p)
            out.append(
                Mutant(
                    kind: kind, table: p.displayTable, policy: p.name, mutation: mutation, apply: apply,
                    undo: undo, equivalentBecause: equivalent,
                    original: p, hint: KillHint(effect: effect, newRow: newRow, ownerColumn: owner)))
        }
        func restore(_ clause: MutationClause) -> [String] { [p.alterSQL(clause, p.expression(clause)!)] }
        for clause in [MutationClause.using, .withCheck] {
            guard let e = p.expression(clause) else { continue }
            let useless = redundancy(p, clause, in: catalog)
            let redundant = useless ?? masked(p, clause, in: catalog)
            let effect: KillHint.Effect =
                clause == .using
                ? .otherUsersRows(command: p.command == "ALL" ? "SELECT" : p.command)
                : .otherUsersRows(command: p.command == "ALL" || p.command == "UPDATE" ? "UPDATE" : "INSERT")
            let newRow = clause == .withCheck
            if !isTrue(e) {
                add(
                    clause == .using ? "using-true" : "check-true", "\(clause.rawValue) replaced by true",
                    apply: [p.alterSQL(clause, "true")], undo: restore(clause), equivalent: redundant, effect,
                    newRow: newRow)
            }
            for (i, part) in ExpressionMutation.conjuncts(e).enumerated() {
                guard let rest = ExpressionMutation.dropping(i, of: e) else { continue }
                let folder = part.contains("foldername")
                add(
                    folder ? "drop-folder-check" : "drop-conjunct",
                    (folder ? "folder check dropped from \(clause.rawValue): " : "dropped from \(clause.rawValue): ")
                        + part, apply: [p.alterSQL(clause, rest)], undo: restore(clause), equivalent: redundant, effect,
                    newRow: newRow)
            }
            if let inv = ExpressionMutation.invertingIdentity(e) {
                add(
                    "invert-identity", "\(clause.rawValue): = made <> in \(inv.comparison)",
                    apply: [p.alterSQL(clause, inv.text)], undo: restore(clause), equivalent: useless, effect,
                    newRow: newRow)
            }
            if let table, let found = ExpressionMutation.identityColumn(e) {
                for other in otherColumns(found.column, in: table) {
                    add(
                        "identity-column",
                        "\(clause.rawValue): \(SQL.display(found.column)) replaced by \(SQL.display(other)) "
                            + "in the comparison with the caller",
                        apply: [p.alterSQL(clause, found.with(other))], undo: restore(clause), equivalent: useless,
                        effect, newRow: newRow)
                }
            }
            if !isTrue(e), p.roles.contains("anon") || p.roles.contains("public") {
                add(
                    "or-signed-in", "\(clause.rawValue) widened: OR auth.uid() IS NOT NULL",
                    apply: [p.alterSQL(clause, "(\(e)) OR auth.uid() IS NOT NULL")], undo: restore(clause),
                    equivalent: redundant, effect)
            }
        }
        if p.command == "UPDATE" || p.command == "ALL", let using = p.using, let check = p.withCheck {
            let same = PolicyExpression(using).canonical == PolicyExpression(check).canonical
            add(
                "drop-check", "WITH CHECK removed (falls back to USING)",
                apply: [p.dropSQL, p.createSQL(using: using, withCheck: nil)], undo: p.recreateSQL,
                equivalent: same ? "WITH CHECK is the same as USING, which it falls back to" : nil,
                .otherUsersRows(command: "UPDATE"))
        }
        // An UPDATE or ALL policy without WITH CHECK checks the new row with USING: a WITH CHECK
        // added that is weaker than USING lets a user write a row they could not have touched.
        if p.command == "UPDATE" || p.command == "ALL", let using = p.using, p.withCheck == nil, !isTrue(using) {
            let useless = redundancy(p, .withCheck, in: catalog)
            let weaker =
                [("true", "WITH CHECK (true) added: USING no longer checks the new row")]
                + ExpressionMutation.conjuncts(using).indices.compactMap { i in
                    ExpressionMutation.dropping(i, of: using).map {
                        ($0, "WITH CHECK added without \(ExpressionMutation.conjuncts(using)[i]) (USING keeps it)")
                    }
                }
            for (check, mutation) in weaker {
                add(
                    "check-weakened", mutation, apply: [p.alterSQL(.withCheck, check)], undo: p.recreateSQL,
                    equivalent: useless, .otherUsersRows(command: "UPDATE"), newRow: true)
            }
        }
        let apiRoles: Set<String> = ["anon", "authenticated"]
        if !p.roles.contains("public"), !Set(p.roles).isSuperset(of: apiRoles) {
            let anonLacks = p.privileges.subtracting(table?.grants["anon"] ?? [])
            let widened = p.roles.contains("authenticated") ? "anon" : "public"
            var because: String? = nil
            if widened == "anon", !anonLacks.isEmpty, p.command != "ALL" {
                because = "anon has no \(anonLacks.sorted().joined(separator: ", ")) privilege on the table"
            } else if widened == "anon", [p.using, p.withCheck].compactMap({ $0 }).allSatisfy(requiresUserId) {
                because = "the policy compares with auth.uid(), which anon does not have"
            }
            add(
                "roles-widened",
                "roles widened: to \(widened == "anon" ? p.roles.joined(separator: ", ") + ", anon" : "public")",
                apply: [
                    "alter policy \(SQL.ident(p.name)) on \(p.qualifiedTable) to "
                        + Policy.rolesSQL(widened == "anon" ? p.roles + ["anon"] : ["public"])
                ],
                undo: ["alter policy \(SQL.ident(p.name)) on \(p.qualifiedTable) to \(Policy.rolesSQL(p.roles))"],
                equivalent: because, .anonymous(command: p.command == "ALL" ? "SELECT" : p.command))
        }
        if !p.permissive {
            add(
                "drop-restrictive", "restrictive policy removed", apply: [p.dropSQL],
                undo: [p.createSQL(using: p.using, withCheck: p.withCheck)], .everything)
        }
        return out
    }

    /// Up to two other columns of the table with the column's type, `id` first: the likeliest
    /// slips (`id = auth.uid()` for `user_id = auth.uid()`).
    static func otherColumns(_ column: String, in table: MutationCatalog.Table) -> [String] {
        guard let type = table.type(of: column) else { return [] }
        let same = table.columns.filter { $0.type == type && $0.name != column }.map(\.name)
        return Array((same.filter { $0 == "id" } + same.filter { $0 != "id" }).prefix(2))
    }

    /// Whether a permissive policy lets `role` use `privilege` on the table at all (RLS off: always).
    static func usable(_ privilege: String, by role: String, _ t: MutationCatalog.Table, _ policies: [Policy]) -> Bool {
        !t.rls
            || policies.contains {
                $0.permissive && ($0.roles.contains(role) || $0.roles.contains("public"))
                    && $0.privileges.contains(privilege)
            }
    }

    /// A column grant (`grant update (name) on t`) widened to the whole table.
    static func columnGrantMutants(_ t: MutationCatalog.Table, policies: [Policy], owner: String?) -> [Mutant] {
        var out: [Mutant] = []
        for role in ["anon", "authenticated"] {
            for (privilege, granted) in (t.columnGrants[role] ?? [:]).sorted(by: { $0.key < $1.key })
            where ["SELECT", "INSERT", "UPDATE"].contains(privilege) && !(t.grants[role] ?? []).contains(privilege) {
                let left = t.columns.map(\.name).filter { !granted.contains($0) }
                let columns = granted.map { SQL.ident($0) }.joined(separator: ", ")
                var because: String? = nil
                if left.isEmpty {
                    because = "the column grant already covers every column"
                } else if !usable(privilege, by: role, t, policies) {
                    because = "row level security is on and no policy applies to \(role) for \(privilege)"
                }
                out.append(
                    Mutant(
                        kind: "column-grant-widened", table: t.display, policy: nil,
                        mutation:
                            "grant widened: \(role)'s \(privilege) (\(columns)) made \(privilege) on the whole table",
                        apply: ["grant \(privilege) on \(t.qualified) to \(SQL.ident(role))"],
                        // Revoking the table privilege revokes the column privileges too.
                        undo: [
                            "revoke \(privilege) on \(t.qualified) from \(SQL.ident(role))",
                            "grant \(privilege) (\(columns)) on \(t.qualified) to \(SQL.ident(role))",
                        ],
                        equivalentBecause: because,
                        hint: KillHint(
                            effect: .columns(command: privilege, role: role, columns: left), ownerColumn: owner)))
            }
        }
        return out
    }

    static func tableMutants(_ t: MutationCatalog.Table, policies: [Policy]) -> [Mutant] {
        var out: [Mutant] = []
        let owner = policies.lazy.compactMap(ownerColumn).first
        if t.rls {
            out.append(
                Mutant(
                    kind: "rls-disabled", table: t.display, policy: nil, mutation: "row level security disabled",
                    apply: ["alter table \(t.qualified) disable row level security"],
                    undo: ["alter table \(t.qualified) enable row level security"],
                    hint: KillHint(effect: .everything, ownerColumn: owner)))
        }
        let anonHas = t.grants["anon"] ?? []
        let extra = (t.grants["authenticated"] ?? []).subtracting(anonHas).filter {
            ["SELECT", "INSERT", "UPDATE", "DELETE"].contains($0)
        }.sorted()
        // authenticated's column grants anon has no privilege of its own for.
        let extraColumns = (t.columnGrants["authenticated"] ?? [:]).filter { privilege, _ in
            !anonHas.contains(privilege) && !extra.contains(privilege)
                && (t.columnGrants["anon"]?[privilege] ?? []).isEmpty
        }.sorted { $0.key < $1.key }
        if !extra.isEmpty || !extraColumns.isEmpty {
            let list = extra.joined(separator: ", ")
            let columnList = extraColumns.map { privilege, columns in
                "\(privilege) (\(columns.map { SQL.ident($0) }.joined(separator: ", ")))"
            }
            let all = (extra.isEmpty ? [] : [list]) + columnList
            // With RLS on, a privilege no permissive policy lets anon use gives anon no row.
            let privileges = extra + extraColumns.map(\.key)
            let usable = privileges.filter { Self.usable($0, by: "anon", t, policies) }
            out.append(
                Mutant(
                    kind: "grant-widened", table: t.display, policy: nil,
                    mutation: "grant widened: anon given \(all.joined(separator: ", ")) (as authenticated has)",
                    apply: all.map { "grant \($0) on \(t.qualified) to anon" },
                    // Revoking a table privilege revokes anon's column privileges of that kind too.
                    undo: all.map { "revoke \($0) on \(t.qualified) from anon" }
                        + extra.compactMap { privilege in
                            (t.columnGrants["anon"]?[privilege]).map { columns in
                                "grant \(privilege) (\(columns.map { SQL.ident($0) }.joined(separator: ", "))) on \(t.qualified) to anon"
                            }
                        },
                    equivalentBecause: usable.isEmpty
                        ? "row level security is on and no policy applies to anon for \(privileges.joined(separator: ", "))"
                        : nil,
                    hint: KillHint(effect: .anonymous(command: usable.first ?? privileges[0]), ownerColumn: owner)))
        }
        return out + columnGrantMutants(t, policies: policies, owner: owner)
    }
}
