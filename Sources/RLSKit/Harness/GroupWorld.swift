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

    init(members: MembersIntent, membersInfo: TableInfo, groupTable: TableInfo?, groupKey: String) {
        self.members = members
        self.membersInfo = membersInfo
        self.groupTable = groupTable
        self.groupKey = groupKey
        let column = membersInfo.column(members.groupColumn)
        g1Key = Self.rawKey(column, 1)
        g2Key = Self.rawKey(column, 2)
        g1 = Self.literal(column, g1Key)
        g2 = Self.literal(column, g2Key)
        let roles = members.roles.isEmpty ? [""] : members.roles
        let g1 = g1, g2 = g2
        g1Actors = roles.map { r in
            MatrixActor(actor: .user(r.isEmpty ? "G1 member" : "G1 \(r)"), groups: [g1: r])
        }
        g2Owner = MatrixActor(actor: .user(roles[0].isEmpty ? "G2 member" : "G2 \(roles[0])"), groups: [g2: roles[0]])
        outsider = MatrixActor(actor: .user("outsider"))
    }

    var top: MatrixActor { g1Actors[0] }
    /// The plain member: the last declared role.
    var plain: MatrixActor { g1Actors[g1Actors.count - 1] }
    var users: [HarnessActor] { (g1Actors + [g2Owner, outsider]).map(\.actor) }
    var hasRoles: Bool { !members.roleColumn.isEmpty }

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
        var fixed = [members.groupColumn: group, members.userColumn: SQL.literal(u.uid) + "::uuid"]
        if hasRoles { fixed[members.roleColumn] = roleLiteral(role) }
        return Seeder(
            table: membersInfo, intent: TableIntent(schema: "", name: "", location: members.location), fixed: fixed
        )
        .row(owner: u.uid, n: n)
    }

    /// A membership row as an INSERT (columns the app needs filled per type).
    func membershipInsert(_ group: String, _ u: HarnessActor, role: String, n: Int, ifMissing: Bool = false) -> String {
        var fixed = [
            members.groupColumn: group, members.userColumn: SQL.literal(u.uid) + "::uuid",
        ]
        if hasRoles { fixed[members.roleColumn] = roleLiteral(role) }
        let seeder = Seeder(
            table: membersInfo, intent: TableIntent(schema: "", name: "", location: members.location), fixed: fixed)
        let r = seeder.row(owner: u.uid, n: n)
        let head = "insert into \(m) (\(r.columns.joined(separator: ", ")))"
        guard ifMissing else { return head + " values (\(r.values.joined(separator: ", ")))" }
        return head
            + " select \(r.values.joined(separator: ", ")) where not exists (select 1 from \(m) where \(whereMember(group, u)))"
    }

    /// Why the groups cannot be seeded, or nil.
    var problem: String? {
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
        let back = serviceRole ? "select set_config('role', 'none', true);\n" : ""
        if let g = groupTable {
            for (key, owner) in [(g1, top.actor), (g2, g2Owner.actor)] {
                let s = groupSeeder(key, owner: owner)
                let r = s.row(owner: owner.uid, n: key == g1 ? 1 : 2)
                sql += "select set_config('request.jwt.claims', \(SQL.literal(owner.claims)), true);\n" + asService
                sql +=
                    "insert into \(g.sqlName) (\(r.columns.joined(separator: ", ")))\(s.overriding) select \(r.values.joined(separator: ", "))"
                    + " where not exists (select 1 from \(g.sqlName) where \(SQL.ident(groupKey)) = \(key));\n" + back
            }
            sql += "select set_config('request.jwt.claims', '', true);\n"
        }
        sql += asService
        let all = g1Actors.map { ($0, g1) } + [(g2Owner, g2)]
        for (i, (a, g)) in all.enumerated() {
            let role = a.groups[g] ?? ""
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
