/// The matrix of a table whose rows belong to groups: every G1 role, G2's owner, a user in no
/// group, anon and the declared roles read, insert, update and delete G1's row, and rows are
/// moved between groups. Expected results come from the declared `who` values only.
struct GroupMatrix {
    let info: TableInfo
    let intent: TableIntent
    let world: GroupWorld
    let roleActors: [MatrixActor]
    let serviceRole: Bool

    var t: String { info.sqlName }
    var g: String { SQL.ident(intent.group) }
    var ownerColumn: String? { intent.owner.isEmpty ? nil : intent.owner }
    /// The table is the group table itself (teams): its rows are the groups.
    var isGroupTable: Bool {
        world.groupTable?.qualifiedName == info.qualifiedName && intent.group == world.groupKey
    }
    /// Who owns G1's and G2's rows when the table has an owner column.
    var r1Owner: HarnessActor { world.plain.actor }
    var r2Owner: HarnessActor { world.g2Owner.actor }
    var actors: [MatrixActor] { world.g1Actors + [world.g2Owner, world.outsider] + world.forgers + roleActors }
    var groupUnique: Bool { info.uniqueKeys.contains([intent.group]) }

    func seeder(_ group: String) -> Seeder { Seeder(table: info, intent: intent, fixed: [intent.group: group]) }

    func whereGroup(_ group: String) -> String { "\(g) = \(group)" }

    var touchColumn: String {
        let keys = Set(info.uniqueKeys.flatMap { $0 })
        let c = info.columns.first {
            $0.writable && $0.name != intent.owner && $0.name != intent.group && !keys.contains($0.name)
        }
        return SQL.ident(c?.name ?? intent.group)
    }

    func seedScript() -> String {
        var sql = world.seedScript(serviceRole: serviceRole)
        // Parents of the table's other foreign keys, for every user that writes a row.
        sql += seeder(world.g1).parents.script(owners: (actors.map(\.actor) + [r1Owner, r2Owner]).map(\.uid))
        guard !isGroupTable else { return sql }
        if serviceRole { sql += "select set_config('role', 'service_role', true);\n" }
        for (n, (group, owner)) in [(world.g1, r1Owner), (world.g2, r2Owner)].enumerated() {
            let r = seeder(group).row(owner: owner.uid, n: n + 1)
            sql +=
                "insert into \(t) (\(r.columns.joined(separator: ", "))) select \(r.values.joined(separator: ", "))"
                + " where not exists (select 1 from \(t) where \(whereGroup(group)));\n"
        }
        if serviceRole { sql += "select set_config('role', 'none', true);\n" }
        return sql
    }

    func unit() -> HarnessUnit {
        let suite = info.qualifiedName
        if let p = world.problem ?? seeder(world.g1).problem {
            return HarnessUnit(suite: suite, notCovered: p, location: intent.location)
        }
        var checks: [PolicyCheck] = [
            PolicyCheck(
                suite: suite, actor: "admin", operation: "rls", name: "row level security is enabled",
                statements: ["select relrowsecurity from pg_class where oid = \(SQL.literal(t))::regclass"],
                expectations: [.isTrue], location: intent.location)
        ]
        func add(
            _ actor: HarnessActor, _ op: String, _ name: String, _ setup: [String], _ sql: String, _ yes: Bool,
            _ row: CheckRow? = nil
        ) {
            let e: Expectation = op == "select" ? (yes ? .visible : .hidden) : (yes ? .allowed : .blocked)
            var r = row
            r?.role = actor.role
            checks.append(
                PolicyCheck(
                    suite: suite, actor: actor.label, operation: op, name: name,
                    statements: setup + [actor.impersonation(), sql], expectations: [e], location: intent.location,
                    row: r))
        }
        func on(_ command: String, _ group: String, set: [(String, String)] = []) -> CheckRow {
            CheckRow(
                table: t, name: info.name, command: command, role: "", existing: whereGroup(group), assignments: set)
        }
        var lastInsert: CheckRow?
        let (g1, g2) = (world.g1, world.g2)
        let owner1 = ownerColumn.map { _ in r1Owner.uid }, owner2 = ownerColumn.map { _ in r2Owner.uid }
        let read = intent.read!, insert = intent.insert!, update = intent.update!, delete = intent.delete!
        var n = 2000
        let clear1 = groupUnique && !isGroupTable ? ["delete from \(t) where \(whereGroup(g1))"] : []
        func newRow(_ group: String, by u: HarnessActor) -> String {
            n += 1
            let s = seeder(isGroupTable ? GroupWorld.key(info.column(intent.group), n) : group)
            let owner = u.kind == .user ? u.uid : r1Owner.uid, r = s.row(owner: owner, n: n)
            lastInsert = CheckRow(table: t, name: info.name, command: "INSERT", role: "", insert: (r.columns, r.values))
            return s.insert(owner: owner, n: n)
        }
        let select = "select count(*) from \(t) where "
        let touch = "update \(t) set \(touchColumn) = \(touchColumn) where "
        let everyone = actors + [MatrixActor(actor: .anon)]
        for x in everyone {
            let u = x.actor, name = u.name, on1 = x.standing(group: g1, owner: owner1)
            add(u, "select", "\(name) reads G1's row", [], select + whereGroup(g1), read.allows(on1), on("SELECT", g1))
            let creates =
                isGroupTable
                ? x.standing(owner: ownerColumn.map { _ in u.uid })
                : x.standing(group: g1, owner: ownerColumn.map { _ in u.uid })
            add(
                u, "insert", isGroupTable ? "\(name) creates a group" : "\(name) inserts a row into G1", clear1,
                newRow(g1, by: u), insert.allows(creates), lastInsert)
            add(
                u, "update", "\(name) updates G1's row", [], touch + whereGroup(g1), update.allows(on1),
                on("UPDATE", g1, set: [(touchColumn, touchColumn)]))
            add(
                u, "delete", "\(name) deletes G1's row", [], "delete from \(t) where \(whereGroup(g1))",
                delete.allows(on1), on("DELETE", g1))
        }
        for name in intent.protected {
            guard let c = info.column(name) else { continue }
            let q = SQL.ident(name)
            if !isGroupTable,
                let x = world.g1Actors.first(where: { a in
                    insert.allows(a.standing(group: g1, owner: ownerColumn.map { _ in a.actor.uid }))
                })
            {
                n += 1
                var s = seeder(g1)
                s.fixed[intent.group] = g1
                checks.append(
                    PolicyCheck(
                        suite: suite, actor: x.actor.label, operation: "insert",
                        name: "\(x.actor.name) inserts a row into G1 with \(q) set",
                        statements: clear1 + [
                            "select set_config('rlskit.protected', '', true)", x.actor.impersonation(),
                            ProtectedColumns.insert(c, seeder: s, owner: x.actor.uid, n: n),
                        ],
                        expectations: [.notStored], location: intent.location,
                        row: {
                            var r = ProtectedColumns.insertRow(c, seeder: s, owner: x.actor.uid, n: n)
                            r.role = x.actor.role
                            return r
                        }()))
            }
            if let x = world.g1Actors.first(where: { update.allows($0.standing(group: g1, owner: owner1)) }) {
                checks.append(
                    PolicyCheck(
                        suite: suite, actor: x.actor.label, operation: "update",
                        name: "\(x.actor.name) changes \(q) on G1's row",
                        statements: [
                            ProtectedColumns.save(c, table: t, where: whereGroup(g1)), x.actor.impersonation(),
                            ProtectedColumns.update(c, table: t, where: whereGroup(g1)),
                        ],
                        expectations: [.notStored], location: intent.location,
                        row: {
                            var r = ProtectedColumns.updateRow(c, table: info, where: whereGroup(g1))
                            r.role = x.actor.role
                            return r
                        }()))
            }
        }
        guard !isGroupTable else {
            return HarnessUnit(
                suite: suite, users: world.users + roleActors.map(\.actor), setup: seedScript(), checks: checks,
                location: intent.location)
        }
        let top = world.top, plain = world.plain, other = world.g2Owner
        add(
            top.actor, "select", "\(top.actor.name) reads G2's row", [], select + whereGroup(g2),
            read.allows(top.standing(group: g2, owner: owner2)), on("SELECT", g2))
        add(
            top.actor, "update", "\(top.actor.name) moves G1's row into G2", [],
            "update \(t) set \(g) = \(g2) where \(whereGroup(g1))",
            update.allows(top.standing(group: g1, owner: owner1))
                && update.allows(top.standing(group: g2, owner: owner1)), on("UPDATE", g1, set: [(g, g2)]))
        add(
            other.actor, "update", "\(other.actor.name) moves G2's row into G1", clear1,
            "update \(t) set \(g) = \(g1) where \(whereGroup(g2))",
            update.allows(other.standing(group: g2, owner: owner2))
                && update.allows(other.standing(group: g1, owner: owner2)), on("UPDATE", g2, set: [(g, g1)]))
        if let oc = ownerColumn, top.actor.uid != plain.actor.uid {
            add(
                plain.actor, "update", "\(plain.actor.name) hands G1's row over to \(top.actor.name)", [],
                "update \(t) set \(SQL.ident(oc)) = \(SQL.literal(top.actor.uid)) where \(whereGroup(g1))",
                update.allows(plain.standing(group: g1, owner: plain.actor.uid))
                    && update.allows(plain.standing(group: g1, owner: top.actor.uid)),
                on("UPDATE", g1, set: [(SQL.ident(oc), SQL.literal(top.actor.uid))]))
        }
        return HarnessUnit(
            suite: suite, users: world.users + roleActors.map(\.actor), setup: seedScript(), checks: checks,
            location: intent.location)
    }
}
