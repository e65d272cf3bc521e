import Foundation

/// Two groups, G1 and G2, and their members, seeded through the app's own tables: one user
/// per declared role in G1, the owner of G2, and a signed-in user in no group.
struct GroupWorld {
    let members: MembersIntent
    let membersInfo: TableInfo
    /// The table the membership's group column points at (teams), and its key column.
    let groupTable: TableInfo?
    let groupKey: String
    /// Group keys as SQL literals of the group column's type.
    let g1: String, g2: String
    /// The same keys as text, as they appear in a storage path (`<key>/file`).
    let g1Key: String, g2Key: String
    let g1Actors: [MatrixActor]
    let g2Owner: MatrixActor
    let outsider: MatrixActor
    /// With membership by claim: a user who wrote G1 and the owner's role into user_metadata.
    let forgers: [MatrixActor]
    /// In G1 with the owner's role and in G2 with the plain member's (groups with roles, by table).
    let dual: MatrixActor?

    /// `keyColumn` gives the group key's type: the membership's group column, or with
    /// membership by claim, a table's group column.
    init(
        members: MembersIntent, membersInfo: TableInfo, groupTable: TableInfo?, groupKey: String,
        keyColumn: TableInfo.ColumnInfo? = nil
    ) {
        self.members = members
        self.membersInfo = membersInfo
        self.groupTable = groupTable
        self.groupKey = groupKey
        let column = keyColumn ?? membersInfo.column(members.groupColumn)
        g1Key = Self.rawKey(column, 1)
        g2Key = Self.rawKey(column, 2)
        g1 = Self.literal(column, g1Key)
        g2 = Self.literal(column, g2Key)
        let k1 = (raw: g1Key, sql: g1)
        let k2 = (raw: g2Key, sql: g2)
        let roles = members.roles.isEmpty ? [""] : members.roles
        let g1 = g1
        let g2 = g2
        func claims(_ key: String, _ role: String) -> String {
            var pairs = [(members.claimPath.last ?? "", JSON.string(key))]
            if let r = members.roleClaimPath.last { pairs.append((r, JSON.string(role))) }
            return JSON.sortedObject(pairs).rendered(pretty: false)
        }
        func member(_ name: String, _ key: (raw: String, sql: String), _ role: String) -> MatrixActor {
            var u = HarnessActor.user(name)
            if members.byClaim { u.appMetadata = claims(key.raw, role) }
            return MatrixActor(actor: u, groups: [key.sql: role])
        }
        g1Actors = roles.map { r in member(r.isEmpty ? "G1 member" : "G1 \(r)", k1, r) }
        g2Owner = member(roles[0].isEmpty ? "G2 member" : "G2 \(roles[0])", k2, roles[0])
        outsider = MatrixActor(actor: .user("outsider"))
        if members.byClaim {
            var f = HarnessActor.user("forged G1 member", metadata: claims(k1.raw, roles[0]))
            f.forged = true
            var all = [MatrixActor(actor: f)]
            if let roleKey = members.roleClaimPath.last, roles.count > 1 {
                // A plain member who wrote the owner's role into user_metadata stays a plain member.
                var p = HarnessActor.user(
                    "G1 \(roles[roles.count - 1]) forging \(roles[0])",
                    metadata: JSON.sortedObject([(roleKey, JSON.string(roles[0]))]).rendered(pretty: false))
                p.appMetadata = claims(k1.raw, roles[roles.count - 1])
                p.forged = true
                all.append(MatrixActor(actor: p, groups: [g1: roles[roles.count - 1]]))
            }
            forgers = all
        } else {
            forgers = []
        }
        // A user in both groups, with a different role in each: where a missing WITH CHECK lets
        // rows move between groups for real (a user in one group is stopped by SELECT policies).
        if !members.byClaim && roles.count > 1 {
            dual = MatrixActor(
                actor: .user("G1 \(roles[0]) in G2 as \(roles[roles.count - 1])"),
                groups: [g1: roles[0], g2: roles[roles.count - 1]])
        } else {
            dual = nil
        }
    }

    var top: MatrixActor { g1Actors[0] }

    /// The key of the group the user belongs to, as text (for `{group}` in header lines).
    func groupKey(of u: HarnessActor) -> String? {
        if g1Actors.contains(where: { $0.actor.uid == u.uid }) || dual?.actor.uid == u.uid { return g1Key }
        return g2Owner.actor.uid == u.uid ? g2Key : nil
    }
    /// The plain member: the last declared role.
    var plain: MatrixActor { g1Actors[g1Actors.count - 1] }
    var users: [HarnessActor] { (g1Actors + [g2Owner, outsider] + forgers + (dual.map { [$0] } ?? [])).map(\.actor) }
    var hasRoles: Bool { !members.roleColumn.isEmpty }
    /// The user column alone is unique: a user belongs to one group at most.
    var onePerUser: Bool { !members.byClaim && membersInfo.uniqueKeys.contains([members.userColumn]) }

    /// A fresh key of the group column's type: unique per run, never taken from a sequence.
    static func key(_ c: TableInfo.ColumnInfo?, _ n: Int) -> String { literal(c, rawKey(c, n)) }

    static func rawKey(_ c: TableInfo.ColumnInfo?, _ n: Int) -> String {
        switch c?.category {
        case "N": "\(Int.random(in: 1_000_000_000...2_000_000_000) + n)"
        case "S": "rlskit-g\(n)-\(UUID().uuidString.prefix(8).lowercased())"
        default: UUID().uuidString.lowercased()
        }
    }

    static func literal(_ c: TableInfo.ColumnInfo?, _ raw: String) -> String {
        let type = c?.type ?? "uuid"
        return (c?.category == "N" ? raw : SQL.literal(raw)) + "::\(type)"
    }

    var m: String { membersInfo.sqlName }
    func whereMember(_ group: String, _ u: HarnessActor) -> String {
        "\(SQL.ident(members.groupColumn)) = \(group) and \(SQL.ident(members.userColumn)) = \(SQL.literal(u.uid))"
    }

    func roleLiteral(_ r: String) -> String {
        let type = membersInfo.column(members.roleColumn)?.type ?? "text"
        return SQL.literal(r) + "::" + type
    }

    /// The columns and values of a membership row.
    func membershipRow(_ group: String, _ u: HarnessActor, role: String, n: Int) -> (
        columns: [String], values: [String]
    ) {
        membershipSeeder(group, u, role: role).row(owner: u.uid, n: n)
    }

    /// The seeder of one membership row; its parent plan's settings hold that user's parents.
    func membershipSeeder(_ group: String, _ u: HarnessActor, role: String) -> Seeder {
        var fixed = [members.groupColumn: group, members.userColumn: SQL.literal(u.uid) + "::uuid"]
        if hasRoles { fixed[members.roleColumn] = roleLiteral(role) }
        return Seeder(
            table: membersInfo, intent: TableIntent(schema: "", name: "", location: members.location), fixed: fixed)
    }

    /// Rows a check inserts into the membership (`outsider joins G1`), besides the seeded ones.
    var joins: [(group: String, user: HarnessActor, role: String)] {
        let roles = members.roles.isEmpty ? [""] : members.roles
        return [
            (g1, outsider.actor, roles[roles.count - 1]), (g1, outsider.actor, roles[0]),
            (g1, g2Owner.actor, roles[roles.count - 1]),
        ]
    }

    /// Parents of the membership's other foreign keys (a NOT NULL `team_id` → a table with keys
    /// of its own), for every membership row seeded or inserted by a check: once per user, or per
    /// group and role where a parent holds them. Rounds 2 and 3 are the group rows' parents, 0
    /// and 1 the unit's table's; rounds stay ≤ 6 so derived numbers fit a smallint.
    func membershipParents(_ rows: [(group: String, user: HarnessActor, role: String)]) -> String {
        var plans: [(plan: ParentPlan, owners: [String])] = []
        for (g, u, role) in rows + joins {
            let plan = membershipSeeder(g, u, role: role).parents
            guard !plan.nodes.isEmpty else { continue }
            if let i = plans.firstIndex(where: { $0.plan.groupTag == plan.groupTag }) {
                if !plans[i].owners.contains(u.uid) { plans[i].owners.append(u.uid) }
            } else {
                plans.append((plan, [u.uid]))
            }
        }
        return plans.enumerated().map { i, p in p.plan.script(owners: p.owners, round: min(4 + i, 6)) }.joined()
    }

    /// A membership row as an INSERT (columns the app needs filled per type).
    func membershipInsert(_ group: String, _ u: HarnessActor, role: String, n: Int, ifMissing: Bool = false) -> String {
        let r = membershipRow(group, u, role: role, n: n)
        let head = "insert into \(m)"
        guard ifMissing else { return head + InsertSQL.values(r.columns, r.values) }
        let exists =
            onePerUser ? "\(SQL.ident(members.userColumn)) = \(SQL.literal(u.uid))" : whereMember(group, u)
        return head + InsertSQL.select(r.columns, r.values)
            + " where not exists (select 1 from \(m) where \(exists))"
    }

    /// Why the groups cannot be seeded, or nil.
    var problem: String? {
        if members.byClaim {
            if let g = groupTable, let p = groupSeeder(g1, owner: top.actor).problem {
                return "cannot seed groups in \(g.qualifiedName): \(p)"
            }
            return nil
        }
        for c in [members.groupColumn, members.userColumn] + (hasRoles ? [members.roleColumn] : [])
        where membersInfo.column(c) == nil {
            return "members \(membersInfo.qualifiedName) has no column '\(c)'"
        }
        var fixed = [members.groupColumn: "", members.userColumn: ""]
        if hasRoles { fixed[members.roleColumn] = "" }
        if let p = Seeder(
            table: membersInfo, intent: TableIntent(schema: "", name: "", location: members.location), fixed: fixed
        ).problem {
            return "cannot seed memberships: \(p)"
        }
        if let g = groupTable, let p = groupSeeder(g1, owner: top.actor).problem {
            return "cannot seed groups in \(g.qualifiedName): \(p)"
        }
        return nil
    }

    func groupSeeder(_ key: String, owner: HarnessActor) -> Seeder {
        Seeder(
            table: groupTable!, intent: TableIntent(schema: "", name: "", location: members.location),
            fixed: [groupKey: key])
    }

    /// Creates G1 and G2 (as their owners' requests would, so triggers that read auth.uid()
    /// see the owner), then every membership, each only if a trigger has not made it already.
    func seedScript(serviceRole: Bool) -> String {
        var sql = ""
        let asService = serviceRole ? "select set_config('role', 'service_role', true);\n" : ""
        let back = serviceRole ? "select set_config('role', null, true);\n" : ""
        if let g = groupTable {
            for (round, (key, owner)) in [(g1, top.actor), (g2, g2Owner.actor)].enumerated() {
                let s = groupSeeder(key, owner: owner)
                let r = s.row(owner: owner.uid, n: key == g1 ? 1 : 2)
                // The group row's own foreign keys (teams.created_by → profiles) need their parents first.
                sql += s.parents.script(owners: [owner.uid], round: 2 + round)
                sql += "select set_config('request.jwt.claims', \(SQL.literal(owner.claims)), true);\n" + asService
                sql +=
                    "insert into \(g.sqlName)" + InsertSQL.select(r.columns, r.values, overriding: s.overriding)
                    + " where not exists (select 1 from \(g.sqlName) where \(SQL.ident(groupKey)) = \(key));\n" + back
            }
            sql += "select set_config('request.jwt.claims', '', true);\n"
        }
        if members.byClaim { return sql }
        var all = g1Actors.map { ($0, g1) } + [(g2Owner, g2)]
        if let d = dual, !onePerUser { all += [(d, g1), (d, g2)] }
        sql += membershipParents(all.map { ($1, $0.actor, $0.groups[$1] ?? "") })
        sql += asService
        for (i, (a, g)) in all.enumerated() {
            let role = a.groups[g] ?? ""
            if onePerUser {
                // One group per user (profiles.org_id): a row a sign-up trigger made is moved into the group.
                sql +=
                    "update \(m) set \(SQL.ident(members.groupColumn)) = \(g) where \(SQL.ident(members.userColumn)) = \(SQL.literal(a.actor.uid));\n"
            }
            sql += membershipInsert(g, a.actor, role: role, n: 900 + i, ifMissing: true) + ";\n"
            if hasRoles {
                let col = SQL.ident(members.roleColumn)
                sql +=
                    "update \(m) set \(col) = \(roleLiteral(role)) where \(whereMember(g, a.actor)) and \(col) is distinct from \(roleLiteral(role));\n"
            }
        }
        return sql + back
    }
}
