/// Shared wording and filters for the lints that read policies.
extension PolicyRow {
    var tableName: String { schema + "." + table }
    func inExposed(_ catalog: AuditCatalog) -> Bool { catalog.exposedSchemas.contains(schema) }
    /// In an exposed schema, or in one the exposed functions query (the policies dataset reads
    /// only those besides the platform's storage and realtime tables).
    func reachedByAPI(_ catalog: AuditCatalog) -> Bool {
        inExposed(catalog) || !SchemaLists.managed.contains(schema)
    }

    /// "anyone (PUBLIC)", "anon, authenticated", …
    var rolesText: String {
        roles.contains("public") ? "every role (PUBLIC, anon included)" : roles.sorted().joined(separator: ", ")
    }

    /// `schema.table`, quoted where needed, for sentences (`tableName` is the lookup key).
    var displayTable: String { AuditNames.qualified(schema, table) }

    var label: String { "policy \(AuditNames.policy(name)) on \(displayTable)" }

    /// The API roles this policy applies to.
    var apiRoles: [String] {
        if roles.contains("public") { return ["anon", "authenticated"] }
        return roles.filter { $0 == "anon" || $0 == "authenticated" }.sorted()
    }

    var expressions: [PolicyExpression] { [usingExpr, checkExpr].compactMap { $0 } }

    var baseMetadata: [String: String] {
        var m = [
            "command": command, "roles": roles.sorted().joined(separator: ","),
            "permissive": permissive ? "true" : "false",
        ]
        if let using { m["using"] = using }
        if let withCheck { m["with_check"] = withCheck }
        return m
    }
}
