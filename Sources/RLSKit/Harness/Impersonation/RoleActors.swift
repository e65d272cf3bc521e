/// The users a declared role brings into every matrix: one the platform gave the claim, and
/// one who wrote the same value where users can write (user_metadata, through
/// `supabase.auth.updateUser`), who must be treated as any other signed-in user.
extension RoleIntent {
    /// The claim as a JSON object below app_metadata (or the token), e.g. {"role":"admin"} or
    /// {"org":{"role":"owner"}} for `app_metadata.org.role`.
    var claimObject: String {
        // A role held through a table row is forged as `{"role": name}`, what users write most.
        if byRow { return "{\"role\":\(JSON.string(name).rendered(pretty: false))}" }
        let keys = inAppMetadata ? Array(claimPath.dropFirst()) : claimPath
        var json = (try? JSON(parsing: value)) ?? .string(value)
        for k in keys.reversed() { json = .object([(k, json)]) }
        return json.rendered(pretty: false)
    }

    /// Set by the service in raw_app_meta_data, rather than a claim of the token's own.
    var inAppMetadata: Bool { claimPath.count >= 2 && claimPath[0] == "app_metadata" }

    var holder: HarnessActor {
        var u = HarnessActor.user(name)
        if byRow { return u }
        if inAppMetadata { u.appMetadata = claimObject } else { u.extraClaims = claimObject }
        return u
    }

    /// The row that gives `u` this role, inserted by the connecting role (as the service would).
    func rowInsert(for u: HarnessActor) -> String? {
        guard byRow else { return nil }
        let cols = [SQL.ident(rowUserColumn)] + rowValues.map { SQL.ident($0.column) }
        let vals = [SQL.literal(u.uid)] + rowValues.map(\.expression)
        return
            "insert into \(rowTable) (\(cols.joined(separator: ", "))) values (\(vals.joined(separator: ", "))) on conflict do nothing;\n"
    }

    var forger: HarnessActor {
        var u = HarnessActor.user("forged \(name)", metadata: claimObject)
        u.forged = true
        return u
    }
}

/// One actor of a matrix and what it really is (what `who` values are judged against).
struct MatrixActor {
    var actor: HarnessActor
    /// Roles the platform gave it.
    var roles: Set<String> = []
    /// Its role in each group it belongs to (group key literal → role, "" without a role column).
    var groups: [String: String] = [:]

    var signedIn: Bool { actor.kind == .user }

    static func roleActors(_ roles: [RoleIntent]) -> [MatrixActor] {
        roles.flatMap { r in [MatrixActor(actor: r.holder, roles: [r.name]), MatrixActor(actor: r.forger)] }
    }

    /// What this actor is to a row in `group` owned by `owner` (uids; nil when the table has none).
    func standing(group: String? = nil, owner: String? = nil) -> Who.Standing {
        Who.Standing(
            signedIn: signedIn, isOwner: owner != nil && signedIn && owner == actor.uid,
            memberRole: group.flatMap { groups[$0] }, roles: roles)
    }
}
