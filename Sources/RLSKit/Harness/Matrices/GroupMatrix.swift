/// The matrix of a table whose rows belong to groups: every G1 role, G2's owner, a user in no
/// group, anon and the declared roles read, insert, update and delete G1's row, and rows are
/// moved between groups. Expected results come from the declared `who` values only.
struct GroupMatrix {
    let info: TableInfo
    let intent: TableIntent
    let world: GroupWorld
    let roleActors: [MatrixActor]
    let serviceRole: Bool
    /// Method, path, headers and read-only mode of each check, as PostgREST sets them.
    var request: APIRequest {
        APIRequest(schema: info.schema, table: info.name, headers: headers, preRequest: preRequest)
    }
    var headers: [APIHeader] = []
    var preRequest: String?

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
    var actors: [MatrixActor] {
        world.g1Actors + [world.g2Owner, world.outsider] + world.forgers + roleActors
            + (sendsGroupHeader ? [headerForger] : []) + (attacker.map { [MatrixActor(actor: $0)] } ?? [])
    }
    /// M: a user in no group with user_metadata forged to what the policies and sign-up triggers read.
    var attacker: HarnessActor?
    /// Headers are the caller's to choose: with a `{group}` header, a user in no group sends G1's key.
    let headerForger = MatrixActor(actor: .user("outsider sending G1's key"))
    var sendsGroupHeader: Bool { headers.contains { $0.value.contains("{group}") } }
    func groupKey(of u: HarnessActor) -> String? {
        u.uid == headerForger.actor.uid ? world.g1Key : world.groupKey(of: u)
    }
    var groupUnique: Bool { info.uniqueKeys.contains([intent.group]) }
    /// Tables between this one and the group (`group project_id through public.projects`), the
    /// nearest to the group first; their G1 and G2 rows are seeded before this table's.
    var through: [ThroughLevel] = []
    /// What the group column holds for G1's and G2's rows: the group keys, or the keys of the
    /// rows of the table it goes through.
    var k1: String { through.last?.k1 ?? world.g1 }
    var k2: String { through.last?.k2 ?? world.g2 }

    struct ThroughLevel {
        var info: TableInfo
        var intent: TableIntent
        /// The column of `info` this level's child points at, and its G1 and G2 values.
        var key: String
        var k1: String, k2: String
    }

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
        let owners = (actors.map(\.actor) + [r1Owner, r2Owner]).filter { $0.id != attacker?.id }.map(\.uid)
        guard !isGroupTable else { return sql + seeder(k1).parents.script(owners: owners) }
        // After the levels: a parent in the row's group may point at the level's row.
        sql += throughScript()
        sql += seeder(k1).parents.script(owners: owners)
        // Parents that belong to the row's group: G2's rows (and rows moved there) need G2's own.
        if seeder(k2).parents.isGroupBound { sql += seeder(k2).parents.script(owners: owners, round: 1) }
        if serviceRole { sql += "select set_config('role', 'service_role', true);\n" }
        for (n, (group, owner)) in [(k1, r1Owner), (k2, r2Owner)].enumerated() {
            let r = seeder(group).row(owner: owner.uid, n: n + 1)
            sql +=
                "insert into \(t)" + InsertSQL.select(r.columns, r.values)
                + " where not exists (select 1 from \(t) where \(whereGroup(group)));\n"
        }
        if serviceRole { sql += "select set_config('role', null, true);\n" }
        return sql
    }

    /// G1's and G2's rows of each table between this one and the group, top down.
    func throughScript() -> String {
        var sql = ""
        var above = (world.g1, world.g2)
        for (i, level) in through.enumerated() {
            let owners = (actors.map(\.actor) + [r1Owner, r2Owner]).filter { $0.id != attacker?.id }.map(\.uid)
            for (n, (parent, key, owner)) in [(above.0, level.k1, r1Owner), (above.1, level.k2, r2Owner)].enumerated() {
                let s = Seeder(
                    table: level.info, intent: level.intent, fixed: [level.intent.group: parent, level.key: key])
                if n == 0 || s.parents.isGroupBound { sql += s.parents.script(owners: owners, round: n) }
                let r = s.row(owner: owner.uid, n: 7000 + i * 10 + n)
                sql +=
                    "insert into \(level.info.sqlName)"
                    + InsertSQL.select(r.columns, r.values, overriding: s.overriding)
                    + " where not exists (select 1 from \(level.info.sqlName) where \(SQL.ident(level.key)) = \(key));\n"
            }
            above = (level.k1, level.k2)
        }
        return sql
    }

    /// A row moved into `group` (owned by `owner`): the group column, and the keys of parents
    /// that belong to a group, pointed at that group's parents.
    /// Columns an UPDATE policy's WITH CHECK pins to a constant are set to it, as a caller
    /// moving the row would (an invitation moved and accepted at once).
    func moveAssignments(to group: String, owner: HarnessActor) -> [(String, String)] {
        var set = [(g, group)]
        let s = seeder(group)
        if s.parents.isGroupBound {
            for c in info.columns {
                guard let p = s.parents.root[c.name] else { continue }
                set.append((SQL.ident(c.name), s.parents.value(p, c, owner: owner.uid, n: 0)))
            }
        }
        for pin in UpdatePins.chosen(info, owner: intent.owner)
        where !set.contains(where: { $0.0 == SQL.ident(pin.column) }) {
            guard let c = info.column(pin.column), c.writable, pin.column != intent.group, pin.column != intent.owner
            else { continue }
            // Uncast: the column's type takes the constant as the WITH CHECK compared it.
            set.append((SQL.ident(pin.column), pin.value))
        }
        return set
    }

    func moveSQL(_ from: String, to: String, owner: HarnessActor) -> String {
        let set = moveAssignments(to: to, owner: owner).map { "\($0.0) = \($0.1)" }.joined(separator: ", ")
        return "update \(t) set \(set) where \(whereGroup(from))"
    }

    /// The unit; M signs up after seeding, since its forged metadata may name G1.
    func finished(_ checks: [PolicyCheck]) -> HarnessUnit {
        var unit = HarnessUnit(
            suite: info.qualifiedName,
            users: world.users + roleActors.map(\.actor) + (sendsGroupHeader ? [headerForger.actor] : [])
                + (attacker.map { [$0] } ?? []),
            setup: seedScript(), checks: checks, location: intent.location)
        if let m = attacker { unit.lateUsers = [m.id] }
        return unit
    }

    /// May `x` move a row from `from` into `to` (owned by `owner`)? `move` when declared; else
    /// who may update it on both sides and insert where it lands.
    func moves(_ x: MatrixActor, from: String, to: String, owner: String?) -> Bool {
        if let m = intent.move {
            return m.allows(x.standing(group: from, owner: owner)) && m.allows(x.standing(group: to, owner: owner))
        }
        let update = intent.update!
        let insert = intent.insert!
        return update.allows(x.standing(group: from, owner: owner))
            && update.allows(x.standing(group: to, owner: owner))
            && insert.allows(x.standing(group: to, owner: owner))
    }

    func unit() -> HarnessUnit {
        let suite = info.qualifiedName
        let levelProblem = through.lazy.compactMap { l in
            Seeder(table: l.info, intent: l.intent, fixed: [l.intent.group: "", l.key: ""]).problem.map {
                "cannot seed \(l.info.qualifiedName) rows for G1 and G2: \($0)"
            }
        }.first
        if let p = world.problem ?? levelProblem ?? seeder(k1).problem {
            return HarnessUnit(suite: suite, notCovered: p, location: intent.location)
        }
        let b = MatrixChecks(
            suite: suite, table: t, location: intent.location, request: request,
            groupKey: { [self] in groupKey(of: $0) })
        func on(_ command: String, _ group: String, set: [(String, String)] = []) -> CheckRow {
            CheckRow(
                table: t, name: info.name, command: command, role: "", existing: whereGroup(group), assignments: set)
        }
        var lastInsert: CheckRow?
        let (g1, g2) = (world.g1, world.g2)
        let owner1 = ownerColumn.map { _ in r1Owner.uid }
        let owner2 = ownerColumn.map { _ in r2Owner.uid }
        let read = intent.read!
        let insert = intent.insert!
        let update = intent.update!
        let delete = intent.delete!
        var n = 2000
        let clear1 = groupUnique && !isGroupTable ? ["delete from \(t) where \(whereGroup(k1))"] : []
        // One row per group: a row moving into G2 first makes room there.
        let clear2 = groupUnique && !isGroupTable ? ["delete from \(t) where \(whereGroup(k2))"] : []
        func newRow(_ group: String, by u: HarnessActor) -> String {
            n += 1
            let s = seeder(isGroupTable ? GroupWorld.key(info.column(intent.group), n) : group)
            // M signs up after the parents are made: its rows use the plain member's parents.
            let owner = u.kind == .user && u.id != attacker?.id ? u.uid : r1Owner.uid
            let r = s.row(owner: owner, n: n)
            lastInsert = CheckRow(table: t, name: info.name, command: "INSERT", role: "", insert: (r.columns, r.values))
            return s.insert(owner: owner, n: n)
        }
        let select = "select count(*) from \(t) where "
        let touch = "update \(t) set \(touchColumn) = \(touchColumn) where "
        let everyone = actors + [MatrixActor(actor: .anon)]
        for x in everyone {
            let u = x.actor
            let name = u.name
            let on1 = x.standing(group: g1, owner: owner1)
            b.add(
                u, "select", "\(name) reads G1's row", [], select + whereGroup(k1), read.allows(on1), on("SELECT", k1))
            let rowOwner = u.id == attacker?.id ? r1Owner.uid : u.uid
            let creates =
                isGroupTable
                ? x.standing(owner: ownerColumn.map { _ in rowOwner })
                : x.standing(group: g1, owner: ownerColumn.map { _ in rowOwner })
            b.add(
                u, "insert", isGroupTable ? "\(name) creates a group" : "\(name) inserts a row into G1", clear1,
                newRow(k1, by: u), insert.allows(creates), lastInsert)
            b.add(
                u, "update", "\(name) updates G1's row", [], touch + whereGroup(k1), update.allows(on1),
                on("UPDATE", k1, set: [(touchColumn, touchColumn)]))
            b.add(
                u, "delete", "\(name) deletes G1's row", [], "delete from \(t) where \(whereGroup(k1))",
                delete.allows(on1), on("DELETE", k1))
        }
        for name in intent.protected {
            guard let c = info.column(name) else { continue }
            let q = SQL.ident(name)
            // A row of G1 with the column set; on the group table, a new group with it set.
            if let x = world.g1Actors.first(where: { a in
                let owner = ownerColumn.map { _ in a.actor.uid }
                return insert.allows(isGroupTable ? a.standing(owner: owner) : a.standing(group: g1, owner: owner))
            }) {
                n += 1
                let key = isGroupTable ? GroupWorld.key(info.column(intent.group), n) : k1
                var s = seeder(key)
                s.fixed[intent.group] = key
                b.append(
                    x.actor, "insert",
                    isGroupTable
                        ? "\(x.actor.name) creates a group with \(q) set"
                        : "\(x.actor.name) inserts a row into G1 with \(q) set",
                    (isGroupTable ? [] : clear1) + [
                        "select set_config('rlskit.protected', '', true)", b.impersonation(x.actor, "insert"),
                        ProtectedColumns.insert(c, seeder: s, owner: x.actor.uid, n: n),
                    ], .notStored, ProtectedColumns.insertRow(c, seeder: s, owner: x.actor.uid, n: n))
            }
            if let x = world.g1Actors.first(where: { update.allows($0.standing(group: g1, owner: owner1)) }) {
                b.append(
                    x.actor, "update", "\(x.actor.name) changes \(q) on G1's row",
                    [
                        ProtectedColumns.save(c, table: t, where: whereGroup(k1)), b.impersonation(x.actor, "update"),
                        ProtectedColumns.update(c, table: t, where: whereGroup(k1)),
                    ], .notStored, ProtectedColumns.updateRow(c, table: info, where: whereGroup(k1)))
            }
        }
        guard !isGroupTable else {
            return finished(b.checks)
        }
        let top = world.top
        let plain = world.plain
        let other = world.g2Owner
        b.add(
            top.actor, "select", "\(top.actor.name) reads G2's row", [], select + whereGroup(k2),
            read.allows(top.standing(group: g2, owner: owner2)), on("SELECT", k2))
        b.add(
            top.actor, "update", "\(top.actor.name) moves G1's row into G2", clear2,
            moveSQL(k1, to: k2, owner: r1Owner),
            // Moving a row into a group is also putting a row there: only for who may insert there.
            moves(top, from: g1, to: g2, owner: owner1), on("UPDATE", k1, set: moveAssignments(to: k2, owner: r1Owner)))
        b.add(
            other.actor, "update", "\(other.actor.name) moves G2's row into G1", clear1,
            moveSQL(k2, to: k1, owner: r2Owner),
            moves(other, from: g2, to: g1, owner: owner2),
            on("UPDATE", k2, set: moveAssignments(to: k1, owner: r2Owner)))
        if let d = world.dual, !world.onePerUser {
            b.add(
                d.actor, "update", "\(d.actor.name) moves G1's row into G2", clear2,
                moveSQL(k1, to: k2, owner: r1Owner),
                moves(d, from: g1, to: g2, owner: owner1),
                on("UPDATE", k1, set: moveAssignments(to: k2, owner: r1Owner)))
        }
        if let oc = ownerColumn, top.actor.uid != plain.actor.uid {
            b.add(
                plain.actor, "update", "\(plain.actor.name) hands G1's row over to \(top.actor.name)", [],
                "update \(t) set \(SQL.ident(oc)) = \(SQL.literal(top.actor.uid)) where \(whereGroup(k1))",
                update.allows(plain.standing(group: g1, owner: plain.actor.uid))
                    && update.allows(plain.standing(group: g1, owner: top.actor.uid)),
                on("UPDATE", k1, set: [(SQL.ident(oc), SQL.literal(top.actor.uid))]))
            // Writing a row in another member's name (a message whose author is someone else).
            n += 1
            let r = seeder(k1).row(owner: top.actor.uid, n: n)
            b.add(
                plain.actor, "insert", "\(plain.actor.name) inserts a row into G1 owned by \(top.actor.name)", clear1,
                seeder(k1).insert(owner: top.actor.uid, n: n),
                insert.allows(plain.standing(group: g1, owner: top.actor.uid)),
                CheckRow(table: t, name: info.name, command: "INSERT", role: "", insert: (r.columns, r.values)))
        }
        return finished(b.checks)
    }
}
