/// The own-row matrix of one declared table: users A and B and anon (and, when policies read
/// JWT claims, M with forged user_metadata) try every operation on their own and others' rows.
/// Expected results come from the declared intent only.
struct TableMatrix {
    let info: TableInfo
    let intent: TableIntent
    let a: HarnessActor, b: HarnessActor
    let attacker: HarnessActor?
    let serviceRole: Bool
    /// Holders and forgers of each declared role.
    let roleActors: [MatrixActor]
    let counter = 1000
    /// Method, path, headers and read-only mode of each check, as PostgREST sets them.
    var request: APIRequest

    init(
        info: TableInfo, intent: TableIntent, serviceRoleCanInsert: Bool, roles: [RoleIntent] = [], hook: Bool = false
    ) {
        self.info = info
        self.intent = intent
        seeder = Seeder(table: info, intent: intent)
        a = .user("A")
        b = .user("B")
        attacker = ClaimAttack.attacker(info.policyTexts, hook: hook)
        serviceRole = serviceRoleCanInsert
        roleActors = MatrixActor.roleActors(roles)
        request = APIRequest(schema: info.schema, table: info.name)
    }

    /// A's standing on its own row and on someone else's; anon's on any.
    static let own = Who.Standing(signedIn: true, isOwner: true)
    static let others = Who.Standing(signedIn: true)
    static let nobody = Who.Standing()
    func expect(_ w: Who?, _ s: Who.Standing, read: Bool = false) -> Expectation {
        let yes = w!.allows(s)
        return read ? (yes ? .visible : .hidden) : (yes ? .allowed : .blocked)
    }

    /// Built once: its parent plan walks the foreign keys.
    let seeder: Seeder
    var owner: String { SQL.ident(intent.owner) }
    var t: String { info.sqlName }
    /// A single-column unique owner (profiles.id): a second row for the same owner cannot exist,
    /// so inserting one first removes the seeded row.
    var ownerUnique: Bool { info.uniqueKeys.contains([intent.owner]) }
    var users: [HarnessActor] { seededUsers + roleActors.map(\.actor) }
    /// The users whose own rows are seeded.
    var seededUsers: [HarnessActor] { [a, b] + (attacker.map { [$0] } ?? []) }

    func whereOwner(_ u: HarnessActor) -> String {
        ownerValues(u).map { "\($0.column) = \($0.value)" }.joined(separator: " and ")
    }

    /// The columns that say who owns a row and their values for `u`'s rows: the owner column, or
    /// with `owner … through` the key to `u`'s seeded parent (kept in a setting, so no policy of
    /// the parent's table hides it from the check).
    func ownerValues(_ u: HarnessActor) -> [(column: String, value: String)] {
        let s = seeder
        guard let fk = ParentPlan.ownerKey(info, owner: intent.owner, through: intent.ownerThrough) else {
            return [(owner, SQL.literal(u.uid))]
        }
        return fk.columns.compactMap { name in
            guard let c = info.column(name), let p = s.parents.root[name] else { return nil }
            return (SQL.ident(name), s.parents.value(p, c, owner: u.uid, n: 0))
        }
    }

    /// The column a no-op UPDATE sets to itself: any plain column, the owner as a last resort.
    var touchColumn: String {
        let keys = Set(info.uniqueKeys.flatMap { $0 })
        let c = info.columns.first { $0.writable && $0.name != intent.owner && !keys.contains($0.name) }
        return SQL.ident(c?.name ?? intent.owner)
    }

    func seedScript() -> String {
        var sql = seeder.parents.script(owners: seededUsers.map(\.uid))
        sql += serviceRole ? "select set_config('role', 'service_role', true);\n" : ""
        for (i, u) in seededUsers.enumerated() {
            let r = seeder.row(owner: u.uid, n: i + 1)
            sql +=
                "insert into \(t)" + InsertSQL.select(r.columns, r.values)
                + " where not exists (select 1 from \(t) where \(whereOwner(u)));\n"
        }
        if serviceRole { sql += "select set_config('role', null, true);\n" }
        return sql
    }

    func unit() -> HarnessUnit {
        let suite = info.qualifiedName
        if let p = seeder.problem { return HarnessUnit(suite: suite, notCovered: p, location: intent.location) }
        var checks: [PolicyCheck] = []
        var impersonations: [String: String] = [:]  // built once per actor: claims JSON is not free
        func add(
            _ actor: HarnessActor, _ op: String, _ name: String, _ setup: [String], _ sql: String, _ e: Expectation,
            _ row: CheckRow? = nil
        ) {
            let imp = impersonations[actor.name + op] ?? actor.impersonation() + request.settings(op, as: actor)
            impersonations[actor.name + op] = imp
            checks.append(
                PolicyCheck(
                    suite: suite, actor: actor.label, operation: op, name: name,
                    statements: setup + [imp, sql], expectations: [e], location: intent.location))
            checks[checks.count - 1].row = row.map {
                var r = $0
                r.role = actor.role
                return r
            }
        }
        func clear(_ u: HarnessActor) -> [String] { ownerUnique ? ["delete from \(t) where \(whereOwner(u))"] : [] }
        var n = counter
        func insert(_ u: HarnessActor) -> String {
            n += 1
            return seeder.insert(owner: u.uid, n: n)
        }

        let read = intent.read
        let own = Self.own
        let others = Self.others
        let nobody = Self.nobody
        checks.append(
            PolicyCheck(
                suite: suite, actor: "admin", operation: "rls", name: "row level security is enabled",
                statements: [Catalog.rowSecuritySQL(SQL.literal(t))],
                expectations: [.isTrue], location: intent.location))
        let select = "select count(*) from \(t) where "
        func touch(_ u: HarnessActor) -> String {
            "update \(t) set \(touchColumn) = \(touchColumn) where \(whereOwner(u))"
        }
        func handOver(_ from: HarnessActor, to: HarnessActor) -> String {
            let set = ownerValues(to).map { "\($0.column) = \($0.value)" }.joined(separator: ", ")
            return "update \(t) set \(set) where \(whereOwner(from))"
        }
        func remove(_ u: HarnessActor) -> String { "delete from \(t) where \(whereOwner(u))" }
        add(a, "select", "A reads own row", [], select + whereOwner(a), expect(read, own, read: true), reading(a))
        add(a, "select", "A reads B's row", [], select + whereOwner(b), expect(read, others, read: true), reading(b))
        add(b, "select", "B reads A's row", [], select + whereOwner(a), expect(read, others, read: true), reading(a))
        add(
            .anon, "select", "anon reads A's row", [], select + whereOwner(a), expect(read, nobody, read: true),
            reading(a))

        add(a, "insert", "A inserts own row", clear(a), insert(a), expect(intent.insert, own), inserting(a, n: n))
        add(
            a, "insert", "A inserts a row owned by B", clear(b), insert(b), expect(intent.insert, others),
            inserting(b, n: n))
        add(
            .anon, "insert", "anon inserts a row owned by A", clear(a), insert(a), expect(intent.insert, nobody),
            inserting(a, n: n))

        let update = intent.update!
        add(
            a, "update", "A updates own row", [], touch(a), expect(update, own),
            updating(a, set: touchColumn, to: touchColumn))
        add(
            a, "update", "A updates B's row", [], touch(b), expect(update, others),
            updating(b, set: touchColumn, to: touchColumn))
        add(
            a, "update", "A hands own row over to B", clear(b), handOver(a, to: b),
            update.allows(own) && update.allows(others) ? .allowed : .blocked,
            updating(a, set: ownerValues(b)[0].column, to: ownerValues(b)[0].value))
        add(
            .anon, "update", "anon updates A's row", [], touch(a), expect(update, nobody),
            updating(a, set: touchColumn, to: touchColumn))

        add(a, "delete", "A deletes own row", [], remove(a), expect(intent.delete, own), deleting(a))
        add(a, "delete", "A deletes B's row", [], remove(b), expect(intent.delete, others), deleting(b))
        add(.anon, "delete", "anon deletes A's row", [], remove(a), expect(intent.delete, nobody), deleting(a))

        if let m = attacker {
            add(
                m, "select", "M reads B's row", [], select + whereOwner(b), expect(read, others, read: true), reading(b)
            )
            add(
                m, "insert", "M inserts a row owned by B", clear(b), insert(b), expect(intent.insert, others),
                inserting(b, n: n))
            add(
                m, "update", "M updates B's row", [], touch(b), expect(update, others),
                updating(b, set: touchColumn, to: touchColumn))
            add(
                m, "update", "M hands own row over to B", clear(b), handOver(m, to: b),
                update.allows(own) && update.allows(others) ? .allowed : .blocked,
                updating(m, set: ownerValues(b)[0].column, to: ownerValues(b)[0].value))
            add(m, "delete", "M deletes B's row", [], remove(b), expect(intent.delete, others), deleting(b))
        }
        for name in intent.protected {
            guard let c = info.column(name) else { continue }
            let q = SQL.ident(name)
            if intent.insert!.allows(own) {
                n += 1
                add(
                    a, "insert", "A inserts own row with \(q) set",
                    clear(a) + ["select set_config('rlskit.protected', '', true)"],
                    ProtectedColumns.insert(c, seeder: seeder, owner: a.uid, n: n), .notStored,
                    ProtectedColumns.insertRow(c, seeder: seeder, owner: a.uid, n: n))
            }
            if update.allows(own) {
                add(
                    a, "update", "A changes \(q) on own row",
                    [ProtectedColumns.save(c, table: t, where: whereOwner(a))],
                    ProtectedColumns.update(c, table: t, where: whereOwner(a)), .notStored,
                    ProtectedColumns.updateRow(c, table: info, where: whereOwner(a)))
            }
        }
        // A role's holder acts on A's row with the role; its forger as any other user.
        for r in roleActors {
            let s = r.standing(owner: a.uid)
            let u = r.actor
            let who = u.name
            add(
                u, "select", "\(who) reads A's row", [], select + whereOwner(a), expect(read, s, read: true), reading(a)
            )
            add(
                u, "insert", "\(who) inserts a row owned by A", clear(a), insert(a), expect(intent.insert, s),
                inserting(a, n: n))
            add(
                u, "update", "\(who) updates A's row", [], touch(a), expect(update, s),
                updating(a, set: touchColumn, to: touchColumn))
            add(u, "delete", "\(who) deletes A's row", [], remove(a), expect(intent.delete, s), deleting(a))
        }
        checks += apiChecks()
        return HarnessUnit(suite: suite, users: users, setup: seedScript(), checks: checks, location: intent.location)
    }
}
