extension CatalogDataset {
    /// SQL: the columns (and single-column foreign key targets) of the tables of policies that
    /// compare a column with itself, and of the tables those policies name; nothing otherwise.
    /// The parse trees are matched, not deparsed: deparsing every policy again would double the
    /// cost of the policies query on large schemas.
    static let selfComparedColumnsSQL = #"""
        with flagged as (
          select p.polrelid, coalesce(p.polqual::text, '') || ' ' || coalesce(p.polwithcheck::text, '') as tree
          from pg_catalog.pg_policy p
          where coalesce(p.polqual::text, '') || ' ' || coalesce(p.polwithcheck::text, '')
                ~ '\{VAR :varno (\d+) :varattno (\d+) [^}]*\} \{VAR :varno \1 :varattno \2 '
        ), rels as (
          select polrelid as oid from flagged
          union select (pg_catalog.regexp_matches(tree, ':relid (\d+)', 'g'))[1]::oid from flagged
        )
        select n.nspname as schema, c.relname as table_name, a.attname as column_name,
               (select fn.nspname || '.' || fc.relname
                from pg_catalog.pg_constraint k
                join pg_catalog.pg_class fc on fc.oid = k.confrelid
                join pg_catalog.pg_namespace fn on fn.oid = fc.relnamespace
                where k.conrelid = c.oid and k.contype = 'f' and k.conkey = array[a.attnum] limit 1) as refs
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        where c.oid in (select oid from rels) and c.relkind in ('r', 'p')
        """#
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
