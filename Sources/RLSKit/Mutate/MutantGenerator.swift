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
            _ effect: KillHint.Effect
        ) {
            let owner = ownerColumn(p)
            out.append(
                Mutant(
                    kind: kind, table: p.displayTable, policy: p.name, mutation: mutation, apply: apply,
                    undo: undo, equivalentBecause: equivalent,
                    original: p, hint: KillHint(effect: effect, ownerColumn: owner)))
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
            if !isTrue(e) {
                add(
                    clause == .using ? "using-true" : "check-true", "\(clause.rawValue) replaced by true",
                    apply: [p.alterSQL(clause, "true")], undo: restore(clause), equivalent: redundant, effect)
            }
            for (i, part) in ExpressionMutation.conjuncts(e).enumerated() {
                guard let rest = ExpressionMutation.dropping(i, of: e) else { continue }
                let folder = part.contains("foldername")
                add(
                    folder ? "drop-folder-check" : "drop-conjunct",
                    (folder ? "folder check dropped from \(clause.rawValue): " : "dropped from \(clause.rawValue): ")
                        + part, apply: [p.alterSQL(clause, rest)], undo: restore(clause), equivalent: redundant, effect)
            }
            if let inv = ExpressionMutation.invertingIdentity(e) {
                add(
                    "invert-identity", "\(clause.rawValue): = made <> in \(inv.comparison)",
                    apply: [p.alterSQL(clause, inv.text)], undo: restore(clause), equivalent: useless, effect)
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
        let extra = (t.grants["authenticated"] ?? []).subtracting(t.grants["anon"] ?? []).filter {
            ["SELECT", "INSERT", "UPDATE", "DELETE"].contains($0)
        }.sorted()
        if !extra.isEmpty {
            let list = extra.joined(separator: ", ")
            // With RLS on, a privilege no permissive policy lets anon use gives anon no row.
            let usable = extra.filter { privilege in
                !t.rls
                    || policies.contains {
                        $0.permissive && ($0.roles.contains("anon") || $0.roles.contains("public"))
                            && $0.privileges.contains(privilege)
                    }
            }
            out.append(
                Mutant(
                    kind: "grant-widened", table: t.display, policy: nil,
                    mutation: "grant widened: anon given \(list) (as authenticated has)",
                    apply: ["grant \(list) on \(t.qualified) to anon"],
                    undo: ["revoke \(list) on \(t.qualified) from anon"],
                    equivalentBecause: usable.isEmpty
                        ? "row level security is on and no policy applies to anon for \(list)" : nil,
                    hint: KillHint(effect: .anonymous(command: extra[0]), ownerColumn: owner)))
        }
        return out
    }
}
