import Postgres

extension AuditCatalog {
    /// Reads, in the audit's snapshot, the columns of the tables of policies that compare a
    /// column with itself and of the tables they read: only after the policies are known, so a
    /// catalog without such a policy costs nothing.
    mutating func loadSelfComparedColumns(_ conn: PostgresConnection) throws {
        let flagged = policies.filter { p in p.expressions.contains { !$0.selfComparisons.isEmpty } }
        guard !flagged.isEmpty else { return }
        var qualified = Set(flagged.map { "\($0.schema).\($0.table)" })
        var bare = Set<String>()
        for p in flagged {
            for t in p.expressions.flatMap(\.fromTables) {
                if t.contains(".") { qualified.insert(t) } else { bare.insert(t) }
            }
        }
        let rows = try conn.query(
            Catalog.namedTableColumnsSQL,
            [Auditor.postgresArray(qualified.sorted()), Auditor.postgresArray(bare.sorted())]
        ).rows
        try load(.selfComparedColumns, rows)
    }
}

extension Lint {
    /// The fix for `alias.col = alias.col` in a policy on `table`: compare with the policy table's
    /// column of the same name, else one whose foreign key references what `col` references or the
    /// subquery's table, else describe that column without naming one that may not exist.
    static func selfComparisonFix(_ comparison: String, policy p: PolicyRow, catalog: AuditCatalog) -> String {
        let sides = comparison.components(separatedBy: " = ")
        let parts = (sides.first ?? "").split(separator: ".").map(String.init)
        let table = AuditNames.ident(p.table)
        guard parts.count == 2 else {
            return "Compare the subquery's column with the policy's own row (a column of \(table)) instead."
        }
        let (alias, column) = (parts[0], parts[1])
        let sub = p.expressions.lazy.compactMap { $0.fromTable(alias: alias) }.first ?? alias
        let own = catalog.columns["\(p.schema).\(p.table)"] ?? []
        let subKey =
            sub.contains(".")
            ? sub : catalog.columns.keys.sorted().first { $0.hasSuffix(".\(sub)") } ?? "\(p.schema).\(sub)"
        let target = catalog.columns[subKey]?.first { $0.name == column }?.references
        let pick =
            own.first { $0.name == column }
            ?? own.first { target != nil && $0.references == target }
            ?? own.first { $0.references == subKey }
        let lhs = "\(alias).\(column)"
        // Columns unknown (quoted names the prefilter missed): name none.
        guard !own.isEmpty else { return "Compare \(lhs) with the policy's own row (a column of \(table)) instead." }
        guard let pick else {
            return
                "Compare \(lhs) with the policy's own row instead: the column of \(table) that references \(AuditNames.ident(String((target ?? subKey).split(separator: ".").last ?? ""))) (\(table) has no column \(AuditNames.ident(column)))."
        }
        return
            "Compare with the policy's own row instead: `\(lhs) = \(table).\(AuditNames.ident(pick.name))`."
    }
}

extension PolicyExpression {
    /// Every table after FROM or JOIN, as written (`memberships`, `public.memberships`).
    var fromTables: [String] {
        let t = Scan.tokens(nodes)
        return t.indices.compactMap { i -> String? in
            guard t[i].isKeyword("FROM") || t[i].isKeyword("JOIN"), i + 1 < t.count, case .ident(let name, _) = t[i + 1]
            else { return nil }
            if i + 3 < t.count, t[i + 2] == .dot, case .ident(let rel, _) = t[i + 3] { return name + "." + rel }
            return name
        }
    }

    /// The table `FROM <table> <alias>` (or `FROM <table>` read as its own alias) names, as written.
    func fromTable(alias: String) -> String? {
        let t = Scan.tokens(nodes)
        for i in t.indices where t[i].isKeyword("FROM") || t[i].isKeyword("JOIN") {
            var j = i + 1
            guard j < t.count, case .ident(var name, _) = t[j] else { continue }
            if j + 2 < t.count, t[j + 1] == .dot, case .ident(let rel, _) = t[j + 2] {
                name += "." + rel
                j += 2
            }
            var k = j + 1
            if k < t.count, t[k].isKeyword("AS") { k += 1 }
            if k < t.count, case .ident(let a, _) = t[k], a == alias { return name }
            if name == alias || name.hasSuffix(".\(alias)") { return name }
        }
        return nil
    }
}
