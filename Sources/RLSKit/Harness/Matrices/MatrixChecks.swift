/// The checks of one group, catalog or membership matrix: the RLS-enabled check first, then
/// one per actor and operation, each impersonating as the Data API does (the statement built
/// once per actor and operation).
final class MatrixChecks {
    let suite: String
    let location: SourceLocation?
    let request: APIRequest
    /// The key of the caller's group, for `{group}` header lines.
    let groupKey: (HarnessActor) -> String?
    private(set) var checks: [PolicyCheck]
    private var impersonations: [String: String] = [:]

    init(
        suite: String, table: String, location: SourceLocation?, request: APIRequest,
        groupKey: @escaping (HarnessActor) -> String? = { _ in nil }
    ) {
        self.suite = suite
        self.location = location
        self.request = request
        self.groupKey = groupKey
        checks = [
            PolicyCheck(
                suite: suite, actor: "admin", operation: "rls", name: "row level security is enabled",
                statements: [Catalog.rowSecuritySQL(SQL.literal(table))],
                expectations: [.isTrue], location: location)
        ]
    }

    func impersonation(_ actor: HarnessActor, _ op: String) -> String {
        let key = actor.uid + op
        if let s = impersonations[key] { return s }
        let s = actor.impersonation() + request.settings(op, as: actor, group: groupKey(actor))
        impersonations[key] = s
        return s
    }

    /// A check whose expectation follows from `yes`: visible or hidden for reads, written or
    /// nothing written otherwise. `row` is what a failure's policy lookup evaluates.
    func add(
        _ actor: HarnessActor, _ op: String, _ name: String, _ setup: [String], _ sql: String, _ yes: Bool,
        _ row: CheckRow? = nil
    ) {
        let e: Expectation = op == "select" ? (yes ? .visible : .hidden) : (yes ? .allowed : .blocked)
        append(actor, op, name, setup + [impersonation(actor, op), sql], e, row)
    }

    func add(_ actor: HarnessActor, _ op: String, _ name: String, _ sql: String, _ yes: Bool, _ row: CheckRow) {
        add(actor, op, name, [], sql, yes, row)
    }

    func append(
        _ actor: HarnessActor, _ op: String, _ name: String, _ statements: [String], _ e: Expectation,
        _ row: CheckRow?
    ) {
        var r = row
        r?.role = actor.role
        checks.append(
            PolicyCheck(
                suite: suite, actor: actor.label, operation: op, name: name, statements: statements,
                expectations: [e], location: location, row: r))
    }
}
