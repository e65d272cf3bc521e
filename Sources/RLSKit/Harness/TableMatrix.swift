/// The own-row matrix of one declared table: users A and B and anon (and, when policies read
/// JWT claims, M with forged user_metadata) try every operation on their own and others' rows.
/// Expected results come from the declared intent only.
struct TableMatrix {
    let info: TableInfo
    let intent: TableIntent
    let a: HarnessActor, b: HarnessActor
    let attacker: HarnessActor?
    let serviceRole: Bool
    let counter = 1000
    /// Method, path, headers and read-only mode of each check, as PostgREST sets them.
    var request: APIRequest

    init(info: TableInfo, intent: TableIntent, serviceRoleCanInsert: Bool) {
        self.info = info
        self.intent = intent
        a = .user("A")
        b = .user("B")
        attacker =
            ClaimAttack.readsClaims(info.policyTexts)
            ? .user("M", metadata: ClaimAttack.metadata(for: info.policyTexts)) : nil
        serviceRole = serviceRoleCanInsert
        request = APIRequest(schema: info.schema, table: info.name)
    }

    var seeder: Seeder { Seeder(table: info, intent: intent) }
    var owner: String { SQL.ident(intent.owner) }
    var t: String { info.sqlName }
    /// A single-column unique owner (profiles.id): a second row for the same owner cannot exist,
    /// so inserting one first removes the seeded row.
    var ownerUnique: Bool { info.uniqueKeys.contains([intent.owner]) }
    var users: [HarnessActor] { [a, b] + (attacker.map { [$0] } ?? []) }

    func whereOwner(_ u: HarnessActor) -> String { "\(owner) = \(SQL.literal(u.uid))" }

    /// The column a no-op UPDATE sets to itself: any plain column, the owner as a last resort.
    var touchColumn: String {
        let keys = Set(info.uniqueKeys.flatMap { $0 })
        let c = info.columns.first { $0.writable && $0.name != intent.owner && !keys.contains($0.name) }
        return SQL.ident(c?.name ?? intent.owner)
    }

    func seedScript() -> String {
        var sql = serviceRole ? "select set_config('role', 'service_role', true);\n" : ""
        for (i, u) in users.enumerated() {
            let r = seeder.row(owner: u.uid, n: i + 1)
            sql +=
                "insert into \(t) (\(r.columns.joined(separator: ", "))) select \(r.values.joined(separator: ", "))"
                + " where not exists (select 1 from \(t) where \(whereOwner(u)));\n"
        }
        if serviceRole { sql += "select set_config('role', 'none', true);\n" }
        return sql
    }

    func unit() -> HarnessUnit {
        let suite = info.qualifiedName
        if let p = seeder.problem { return HarnessUnit(suite: suite, notCovered: p, location: intent.location) }
        var checks: [PolicyCheck] = []
        var impersonations: [String: String] = [:]  // built once per actor: claims JSON is not free
        func add(
            _ actor: HarnessActor, _ op: String, _ name: String, _ setup: [String], _ sql: String, _ e: Expectation
        ) {
            let imp = impersonations[actor.name + op] ?? actor.impersonation() + request.settings(op, as: actor)
            impersonations[actor.name + op] = imp
            checks.append(
                PolicyCheck(
                    suite: suite, actor: actor.label, operation: op, name: name,
                    statements: setup + [imp, sql], expectations: [e], location: intent.location))
        }
        func clear(_ u: HarnessActor) -> [String] { ownerUnique ? ["delete from \(t) where \(whereOwner(u))"] : [] }
        var n = counter
        func insert(_ u: HarnessActor) -> String { n += 1; return seeder.insert(owner: u.uid, n: n) }

        let read = intent.read!
        let othersVisible = read == .anyone || read == .signedIn
        checks.append(
            PolicyCheck(
                suite: suite, actor: "admin", operation: "rls", name: "row level security is enabled",
                statements: ["select relrowsecurity from pg_class where oid = \(SQL.literal(t))::regclass"],
                expectations: [.isTrue], location: intent.location))
        add(
            a, "select", "A reads own row", [], "select count(*) from \(t) where \(whereOwner(a))",
            read == .nobody ? .hidden : .visible)
        add(
            a, "select", "A reads B's row", [], "select count(*) from \(t) where \(whereOwner(b))",
            othersVisible ? .visible : .hidden)
        add(
            b, "select", "B reads A's row", [], "select count(*) from \(t) where \(whereOwner(a))",
            othersVisible ? .visible : .hidden)
        add(
            .anon, "select", "anon reads A's row", [], "select count(*) from \(t) where \(whereOwner(a))",
            read == .anyone ? .visible : .hidden)

        add(a, "insert", "A inserts own row", clear(a), insert(a), intent.insert == .owner ? .allowed : .blocked)
        add(a, "insert", "A inserts a row owned by B", clear(b), insert(b), .blocked)
        add(.anon, "insert", "anon inserts a row owned by A", clear(a), insert(a), .blocked)

        add(
            a, "update", "A updates own row", [],
            "update \(t) set \(touchColumn) = \(touchColumn) where \(whereOwner(a))",
            intent.update == .owner ? .allowed : .blocked)
        add(
            a, "update", "A updates B's row", [],
            "update \(t) set \(touchColumn) = \(touchColumn) where \(whereOwner(b))", .blocked)
        add(
            a, "update", "A hands own row over to B", clear(b),
            "update \(t) set \(owner) = \(SQL.literal(b.uid)) where \(whereOwner(a))", .blocked)
        add(
            .anon, "update", "anon updates A's row", [],
            "update \(t) set \(touchColumn) = \(touchColumn) where \(whereOwner(a))", .blocked)

        add(
            a, "delete", "A deletes own row", [], "delete from \(t) where \(whereOwner(a))",
            intent.delete == .owner ? .allowed : .blocked)
        add(a, "delete", "A deletes B's row", [], "delete from \(t) where \(whereOwner(b))", .blocked)
        add(.anon, "delete", "anon deletes A's row", [], "delete from \(t) where \(whereOwner(a))", .blocked)

        if let m = attacker {
            let mv = read == .anyone || read == .signedIn
            add(
                m, "select", "M reads B's row", [], "select count(*) from \(t) where \(whereOwner(b))",
                mv ? .visible : .hidden)
            add(m, "insert", "M inserts a row owned by B", clear(b), insert(b), .blocked)
            add(
                m, "update", "M updates B's row", [],
                "update \(t) set \(touchColumn) = \(touchColumn) where \(whereOwner(b))", .blocked)
            add(
                m, "update", "M hands own row over to B", clear(b),
                "update \(t) set \(owner) = \(SQL.literal(b.uid)) where \(whereOwner(m))", .blocked)
            add(m, "delete", "M deletes B's row", [], "delete from \(t) where \(whereOwner(b))", .blocked)
        }
        checks += apiChecks()
        return HarnessUnit(suite: suite, users: users, setup: seedScript(), checks: checks, location: intent.location)
    }
}
