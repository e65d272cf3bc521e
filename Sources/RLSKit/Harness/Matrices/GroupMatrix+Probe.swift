/// The function probe in a group table's unit: anon, the outsider, each of G1's role holders,
/// G2's owner (and forgers, and the roles a `callable-by` names) call each function with G2's
/// rows; only changes to rows of groups the caller is not in count as writes.
extension GroupMatrix {
    /// Argument names that mean the group, whatever the tables are called.
    static let groupArgumentNames: Set<String> = [
        "org_id", "organization_id", "team_id", "account_id", "group_id", "workspace_id", "tenant_id",
    ]

    var groupArgumentNames: Set<String> {
        var names = Self.groupArgumentNames
        names.insert(world.members.groupColumn)
        if let g = world.groupTable {
            let singular = g.name.hasSuffix("s") ? String(g.name.dropLast()) : g.name
            names.formUnion([singular + "_id", g.name + "_id"])
            if world.groupKey != "id" { names.insert(world.groupKey) }
        }
        return names.filter { !$0.isEmpty }
    }

    /// Each seeded table's rows of group `n` (1 or 2), as fingerprint queries.
    func watch(_ n: Int) -> [FunctionProbe.Watch] {
        var parts: [(TableInfo, String, String)] = []
        let key = n == 1 ? world.g1 : world.g2
        if let g = world.groupTable { parts.append((g, world.groupKey, key)) }
        if !world.members.byClaim { parts.append((world.membersInfo, world.members.groupColumn, key)) }
        for l in through { parts.append((l.info, l.key, n == 1 ? l.k1 : l.k2)) }
        if !isGroupTable { parts.append((info, intent.group, n == 1 ? k1 : k2)) }
        return parts.map { t, column, value in
            FunctionProbe.Watch(
                table: AuditNames.qualified(t.schema, t.name),
                sql:
                    "select count(*)::text || coalesce(md5(string_agg(to_jsonb(t)::text, ',' order by to_jsonb(t)::text)), '') from \(t.sqlName) t where t.\(SQL.ident(column)) = \(value)"
            )
        }
    }

    /// The user a user-id argument names: G2's plain member (the user in both groups), so that
    /// "remove member" as G2's owner is not "remove myself"; G2's owner when G2 has no other member.
    var g2Member: MatrixActor {
        if let d = world.dual, !world.onePerUser { return d }
        return world.g2Owner
    }

    func probe(exposedSchemas: [String], intents: [FunctionIntent]) -> FunctionProbeRequest {
        let (g1, g2) = (world.g1, world.g2)
        func caller(_ x: MatrixActor, _ label: String) -> FunctionProbeRequest.Caller {
            let in1 = x.groups[g1] != nil
            let in2 = x.groups[g2] != nil
            let others = (in1 ? [] : [world.g1Key]) + (in2 ? [] : [world.g2Key])
            return FunctionProbeRequest.Caller(
                actor: x.actor, label: label, others: others, writer: x.standing(group: g2),
                reader: Who.Standing(signedIn: x.signedIn, roles: x.roles),
                watch: (in1 ? [] : watch(1)) + watch(2))
        }
        // Every G1 role holder: an owner of another group breaks a guard that asks "owner of some group?".
        var callers = [caller(MatrixActor(actor: .anon), "anon"), caller(world.outsider, world.outsider.actor.name)]
        callers += world.g1Actors.map { caller($0, $0.actor.name) }
        callers.append(caller(world.g2Owner, world.g2Owner.actor.name))
        callers += world.forgers.map { caller($0, $0.actor.name) }
        let named = Set(intents.flatMap(\.callableBy.roleNames))
        callers += roleActors.filter { a in named.contains { a.roles.contains($0) || a.actor.name == "forged \($0)" } }
            .map { caller($0, $0.actor.name) }
        let type = world.g2.components(separatedBy: "::").last ?? "uuid"
        var request = FunctionProbeRequest(
            exposedSchemas: exposedSchemas, callers: callers,
            arguments: .init(
                prefer: world.g2Key, user: g2Member.actor.uid,
                group: .init(key: world.g2Key, type: type, names: groupArgumentNames)),
            source: "G2's rows", intents: intents)
        request.undeclared = .members
        request.undeclaredText = "only members of the group whose rows it is given"
        return request
    }
}
