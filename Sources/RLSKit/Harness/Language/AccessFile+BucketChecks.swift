/// What a bucket block must say once the whole file is read, and declarations the Storage API
/// could never honour.
extension AccessFile.Parser {
    func finishBucket(_ b: BucketIntent) throws(InputError) {
        let what = "bucket \(b.id)"
        let members = try bucketMembers(b)
        for v in b.written.sorted(by: { $0.at.line < $1.at.line }) {
            try checkNames(v.who, at: v.at, what: what, key: v.key)
            if b.model == .group, v.who.mentionsOwner {
                throw InputError(
                    v.at,
                    "\(what): in a group bucket objects belong to the group in their first folder, not to a user: use members, members with role R or a role"
                )
            }
            if b.model != .group, v.who.mentionsMembers {
                throw InputError(
                    v.at,
                    "\(what) has no 'ownership group', which '\(v.key) \(v.who)' needs: add 'ownership group' (objects in a group's folder)"
                )
            }
            for r in v.who.memberRoles where !(members?.roles.contains(r) ?? true) {
                throw InputError(
                    v.at,
                    "\(what): '\(r)' is not in the 'roles' line of members \(members!.qualifiedName): fix the name")
            }
        }
        if b.read == nil {
            throw InputError(b.location, "\(what) has no 'read' line: add 'read public' or 'read <who>' (\(Who.usage))")
        }
        let ops: [(String, Who?)] = [
            ("upload", b.upload), ("overwrite", b.overwrite), ("move", b.move), ("delete", b.delete),
        ]
        if ops.allSatisfy({ $0.1 == nil }) {
            throw InputError(
                b.location,
                "\(what) has no 'write' line: add 'write own-folder|owner|signed-in|anyone|nobody|…' (or upload, overwrite, move and delete lines)"
            )
        }
        for (op, v) in ops where v == nil {
            throw InputError(b.location, "\(what) does not say who may \(op): add '\(op) …' or a 'write' line")
        }
        if b.list != nil, b.read != .public {
            throw InputError(
                b.settings["list"]!,
                "'list' is for public buckets: in a private bucket 'read' says who lists and downloads (both SELECT); drop 'list'"
            )
        }
        let settingAt = { (op: String) in b.settings[op] ?? b.settings["write"] ?? b.location }
        let kinds = standings(members)
        // Overwrites are INSERT … ON CONFLICT DO UPDATE: the insert policy must pass too, for the
        // new row (in an owner-id bucket, the caller's).
        let ov = b.overwrite!
        let up = b.upload!
        if kinds.contains(where: { s in
            var mine = s
            if b.model == .ownerID && s.signedIn { mine.isOwner = true }
            return ov.allows(s) && !up.allows(mine)
        }) {
            throw InputError(
                settingAt("overwrite"),
                "\(what): overwrite \(ov) but upload \(up): the Storage API overwrites with an upsert, which the upload (insert) policy must allow too; widen upload or narrow overwrite"
            )
        }
        // Deletes, moves and overwrites return the row (RETURNING): whoever does them must see it.
        let lister = b.lister
        for (op, v) in ops.dropFirst() where kinds.contains(where: { v!.allows($0) && !lister.allows($0) }) {
            throw InputError(
                settingAt(op),
                "\(what): \(op) \(v!) but only \(lister) may list: the Storage API \(op)s with RETURNING, which needs the SELECT policy too; widen \(b.settings["list"] == nil ? "read" : "list") or narrow \(op)"
            )
        }
    }

    /// The members block a group bucket follows: the one it names, or the only one.
    func bucketMembers(_ b: BucketIntent) throws(InputError) -> MembersIntent? {
        guard b.model == .group else { return nil }
        let at = b.settings["ownership"] ?? b.location
        if file.memberships.isEmpty {
            throw InputError(
                at,
                "'ownership group' needs group declarations: add a 'members schema.table' block (group and user lines) saying who belongs to a group"
            )
        }
        if let name = b.groupMembers {
            guard let m = known.memberships[name] else {
                throw InputError(
                    at,
                    "'ownership group \(name)': no members block declares \(name): use one of "
                        + file.memberships.map(\.qualifiedName).joined(separator: ", "))
            }
            return m
        }
        guard file.memberships.count == 1 else {
            throw InputError(
                at,
                "'ownership group': several members blocks, say which the folders follow, e.g. 'ownership group \(file.memberships[0].qualifiedName)'"
            )
        }
        return file.memberships[0]
    }

    /// One standing per thing a `who` can name (anon, a user, the owner, each member role, each
    /// declared role): every `who` is monotone in them, so comparing two on these compares them everywhere.
    func standings(_ members: MembersIntent?) -> [Who.Standing] {
        var out = [Who.Standing(), Who.Standing(signedIn: true), Who.Standing(signedIn: true, isOwner: true)]
        for r in file.roles { out.append(Who.Standing(signedIn: true, roles: [r.name])) }
        if let m = members {
            for r in m.roles.isEmpty ? [""] : m.roles { out.append(Who.Standing(signedIn: true, memberRole: r)) }
        }
        return out
    }
}
