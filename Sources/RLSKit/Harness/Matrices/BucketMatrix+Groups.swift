/// Team folders (`ownership group`): objects live under `<group key>/…`. Every G1 role, G2's
/// owner, the outsider, anon and the declared roles list, upload, overwrite, move and delete
/// G1's object; G1's owner uploads into G2's folder and moves G1's object there.
extension BucketMatrix {
    func inGroup(_ key: String, _ tag: String) -> String { "\(key)/rlskit-\(tag).\(files.ext)" }
    func seededIn(_ key: String) -> String { inGroup(key, "seeded") }

    func groupChecks(_ w: GroupWorld) -> [PolicyCheck] {
        var out: [PolicyCheck] = []
        let lister = intent.lister
        let up = intent.upload!
        let ov = intent.overwrite!
        let mv = intent.move!
        let dl = intent.delete!
        let g1Object = seededIn(w.g1Key)
        let g2Object = seededIn(w.g2Key)
        let everyone =
            w.g1Actors + [w.g2Owner, w.outsider] + (attacker.map { [MatrixActor(actor: $0)] } ?? []) + roleActors
            + [MatrixActor(actor: .anon)]
        for (i, x) in everyone.enumerated() {
            let u = x.actor
            let n = u.name
            let s = x.standing(group: w.g1)
            out.append(
                check(u, "select", "list", "\(n) lists G1's object", listing(g1Object), lister.allows(s), list: true))
            out.append(
                check(
                    u, "insert", "upload", "\(n) uploads into G1's folder", uploading(u, inGroup(w.g1Key, "new-\(i)")),
                    up.allows(s)))
            out.append(
                check(
                    u, "update", "overwrite", "\(n) overwrites G1's object", uploading(u, g1Object, upsert: true),
                    ov.allows(s)))
            out.append(
                check(
                    u, "update", "move", "\(n) moves G1's object",
                    moving(u, g1Object, to: inGroup(w.g1Key, "moved-\(i)")),
                    mv.allows(s)))
            out.append(check(u, "delete", "delete", "\(n) deletes G1's object", deleting(g1Object), dl.allows(s)))
        }
        let top = w.top.actor
        let t = top.name
        let in1 = w.top.standing(group: w.g1)
        let in2 = w.top.standing(group: w.g2)
        out.append(
            check(top, "select", "list", "\(t) lists G2's object", listing(g2Object), lister.allows(in2), list: true))
        out.append(
            check(
                top, "insert", "upload", "\(t) uploads into G2's folder", uploading(top, inGroup(w.g2Key, "from-g1")),
                up.allows(in2)))
        // The first folder is the group at any depth (see the user folders' checks).
        out.append(
            check(
                top, "insert", "upload", "\(t) uploads into G2's folder, under a sub-folder named for G1",
                uploading(top, inGroup("\(w.g2Key)/\(w.g1Key)", "deep")), up.allows(in2)))
        out.append(
            check(
                top, "insert", "upload", "\(t) uploads into G1's folder, under a sub-folder named for G2",
                uploading(top, inGroup("\(w.g1Key)/\(w.g2Key)", "deep")), up.allows(in1)))
        out.append(
            check(
                top, "update", "move", "\(t) moves G1's object into G2's folder",
                moving(top, g1Object, to: inGroup(w.g2Key, "moved-from-g1")), mv.allows(in1) && mv.allows(in2)))
        let other = w.g2Owner.actor
        let o1 = w.g2Owner.standing(group: w.g1)
        let o2 = w.g2Owner.standing(group: w.g2)
        out.append(
            check(
                other, "update", "move", "\(other.name) moves G2's object into G1's folder",
                moving(other, g2Object, to: inGroup(w.g1Key, "moved-from-g2")), mv.allows(o2) && mv.allows(o1)))
        out.append(
            check(
                top, "insert", "upload", "\(t) uploads outside any group folder",
                uploading(top, "rlskit-root.\(files.ext)"),
                up.allows(w.top.standing())))
        if up.allows(in1) {
            out += refusedUploads(top, t, typed: inGroup(w.g1Key, "typed"), large: inGroup(w.g1Key, "large"))
        }
        return out
    }
}
