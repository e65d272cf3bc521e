/// The matrix of a membership table: who reads memberships, adds and removes others, leaves,
/// changes roles; and what nobody may do whatever is declared: join a group uninvited or
/// change one's own role.
struct MembersMatrix {
    let world: GroupWorld
    let roleActors: [MatrixActor]
    let serviceRole: Bool
    var headers: [APIHeader] = []
    var preRequest: String?
    var request: APIRequest {
        APIRequest(
            schema: world.membersInfo.schema, table: world.membersInfo.name, headers: headers, preRequest: preRequest)
    }

    var intent: MembersIntent { world.members }
    var m: String { world.m }

    func unit() -> HarnessUnit {
        let suite = intent.qualifiedName
        if let p = world.problem { return HarnessUnit(suite: suite, notCovered: p, location: intent.location) }
        let world = self.world
        let b = MatrixChecks(
            suite: suite, table: m, location: intent.location, request: request, groupKey: { world.groupKey(of: $0) })
        func on(_ command: String, _ group: String, _ u: HarnessActor, set: [(String, String)] = []) -> CheckRow {
            CheckRow(
                table: m, name: world.membersInfo.name, command: command, role: "",
                existing: world.whereMember(group, u), assignments: set)
        }
        var lastJoin: CheckRow?
        let g1 = world.g1
        let g2 = world.g2
        let top = world.top
        let plain = world.plain
        let other = world.g2Owner
        let outsider = world.outsider
        let lowest = intent.roles.last ?? ""
        let highest = intent.roles.first ?? ""
        var n = 3000
        // One group per user (profiles.org_id): joining is moving one's row into the group.
        let joinOp = world.onePerUser ? "update" : "insert"
        func join(_ group: String, _ u: HarnessActor, as role: String) -> String {
            n += 1
            if world.onePerUser {
                var set = [(SQL.ident(intent.groupColumn), group)]
                if world.hasRoles { set.append((SQL.ident(intent.roleColumn), world.roleLiteral(role))) }
                lastJoin = CheckRow(
                    table: m, name: world.membersInfo.name, command: "UPDATE", role: "",
                    existing: "\(SQL.ident(intent.userColumn)) = \(SQL.literal(u.uid))", assignments: set)
                return "update \(m) set " + set.map { "\($0.0) = \($0.1)" }.joined(separator: ", ")
                    + " where \(SQL.ident(intent.userColumn)) = \(SQL.literal(u.uid))"
            }
            let r = world.membershipRow(group, u, role: role, n: n)
            lastJoin = CheckRow(table: m, name: world.membersInfo.name, command: "INSERT", role: "", insert: r)
            return world.membershipInsert(group, u, role: role, n: n)
        }
        let anon = MatrixActor(actor: .anon)
        let everyone = world.g1Actors + [other, outsider] + roleActors + [anon]
        let read = intent.read!
        let addWho = intent.add!
        let remove = intent.remove!
        let leave = intent.leave!
        // Each reads another G1 member's membership (the owner's; the owner reads the plain member's).
        for x in everyone {
            let target = x.actor.uid == top.actor.uid ? plain.actor : top.actor
            b.add(
                x.actor, "select", "\(x.actor.name) reads G1's membership of \(target.name)",
                "select count(*) from \(m) where \(world.whereMember(g1, target))", read.allows(x.standing(group: g1)),
                on("SELECT", g1, target))
        }
        // Joining: the outsider and G2's owner add themselves; members add the outsider.
        b.add(
            outsider.actor, joinOp, "outsider joins G1 uninvited", join(g1, outsider.actor, as: lowest),
            addWho.allows(outsider.standing(group: g1)), lastJoin!)
        if world.hasRoles && highest != lowest {
            b.add(
                outsider.actor, joinOp, "outsider joins G1 uninvited as \(highest)",
                join(g1, outsider.actor, as: highest), addWho.allows(outsider.standing(group: g1)), lastJoin!)
        }
        b.add(
            other.actor, joinOp, "\(other.actor.name) joins G1 uninvited", join(g1, other.actor, as: lowest),
            addWho.allows(other.standing(group: g1)), lastJoin!)
        for x in world.g1Actors + roleActors + [anon] {
            b.add(
                x.actor, joinOp, "\(x.actor.name) adds outsider to G1", join(g1, outsider.actor, as: lowest),
                addWho.allows(x.standing(group: g1)), lastJoin!)
        }
        // Removing others, and leaving.
        let deleteFrom = "delete from \(m) where "
        if top.actor.uid != plain.actor.uid {
            b.add(
                top.actor, "delete", "\(top.actor.name) removes \(plain.actor.name)",
                deleteFrom + world.whereMember(g1, plain.actor), remove.allows(top.standing(group: g1)),
                on("DELETE", g1, plain.actor))
            b.add(
                plain.actor, "delete", "\(plain.actor.name) removes \(top.actor.name)",
                deleteFrom + world.whereMember(g1, top.actor), remove.allows(plain.standing(group: g1)),
                on("DELETE", g1, top.actor))
        }
        for x in [other] + roleActors + [anon] {
            b.add(
                x.actor, "delete", "\(x.actor.name) removes \(plain.actor.name) from G1",
                deleteFrom + world.whereMember(g1, plain.actor), remove.allows(x.standing(group: g1)),
                on("DELETE", g1, plain.actor))
        }
        let leaver = top.actor.uid == plain.actor.uid ? top : plain
        b.add(
            leaver.actor, "delete", "\(leaver.actor.name) leaves G1", deleteFrom + world.whereMember(g1, leaver.actor),
            leave.allows(leaver.standing(group: g1)), on("DELETE", g1, leaver.actor))
        // Moving one's membership into another group is joining it uninvited.
        b.add(
            plain.actor, "update", "\(plain.actor.name) moves own membership into G2",
            "update \(m) set \(SQL.ident(intent.groupColumn)) = \(g2) where \(world.whereMember(g1, plain.actor))",
            addWho.allows(plain.standing(group: g2)) && leave.allows(plain.standing(group: g1)),
            on("UPDATE", g1, plain.actor, set: [(SQL.ident(intent.groupColumn), g2)]))
        if world.hasRoles && highest != lowest {
            let col = SQL.ident(intent.roleColumn)
            let change = intent.changeRole!
            let next = intent.roles[intent.roles.count >= 3 ? 1 : 0]
            b.add(
                plain.actor, "update", "\(plain.actor.name) promotes self to \(highest)",
                "update \(m) set \(col) = \(world.roleLiteral(highest)) where \(world.whereMember(g1, plain.actor))",
                false, on("UPDATE", g1, plain.actor, set: [(col, world.roleLiteral(highest))]))
            b.add(
                top.actor, "update", "\(top.actor.name) changes \(plain.actor.name)'s role to \(next)",
                "update \(m) set \(col) = \(world.roleLiteral(next)) where \(world.whereMember(g1, plain.actor))",
                change.allows(top.standing(group: g1)),
                on("UPDATE", g1, plain.actor, set: [(col, world.roleLiteral(next))]))
            for x in [other] + roleActors + [anon] {
                b.add(
                    x.actor, "update", "\(x.actor.name) changes \(plain.actor.name)'s role in G1",
                    "update \(m) set \(col) = \(world.roleLiteral(next)) where \(world.whereMember(g1, plain.actor))",
                    change.allows(x.standing(group: g1)),
                    on("UPDATE", g1, plain.actor, set: [(col, world.roleLiteral(next))]))
            }
        }
        return HarnessUnit(
            suite: suite, users: world.users + roleActors.map(\.actor),
            setup: world.seedScript(serviceRole: serviceRole),
            checks: b.checks, location: intent.location)
    }
}
