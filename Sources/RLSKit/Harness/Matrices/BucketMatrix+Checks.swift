extension BucketMatrix {
    /// One check: `setting` is the operation whose declaration it follows.
    func check(
        _ actor: HarnessActor, _ op: String, _ setting: String, _ name: String, _ probe: Probe, _ ok: Bool,
        list: Bool = false
    ) -> PolicyCheck {
        let e: Expectation = list ? (ok ? .visible : .hidden) : (ok ? .allowed : .blocked)
        let storageOp = [
            "list": "storage.object.list", "upload": "storage.object.upload",
            "overwrite": "storage.object.upload", "move": "storage.object.move", "delete": "storage.object.delete",
        ][setting]!
        return PolicyCheck(
            suite: "bucket \(intent.id)", actor: actor.label, operation: op, name: name,
            statements: [actor.impersonation(storage: storageOp) + storagePath + (list ? readOnly : ""), probe.sql],
            expectations: [e],
            location: intent.settings[setting] ?? intent.settings[setting == "list" ? "read" : "write"]
                ?? intent.location,
            row: probe.row.map { r in
                var r = r
                r.role = actor.role
                return r
            })
    }

    /// Whether `w` lets a caller act on an object: `owns` when it is the caller's, `user` when signed in.
    func may(_ w: Who, owns: Bool, user: Bool) -> Bool { w.allows(Who.Standing(signedIn: user, isOwner: owns && user)) }

    /// The check that the bucket is public or private as declared (a `read anyone` bucket may be either).
    func visibility() -> [PolicyCheck] {
        guard intent.read?.who?.principals.contains(.anyone) != true else { return [] }
        let publicWanted = intent.read == .public
        return [
            PolicyCheck(
                suite: "bucket \(intent.id)", actor: "admin", operation: "select",
                name: publicWanted ? "bucket is public (files served by URL)" : "bucket is private (no public URLs)",
                statements: [
                    "select \(publicWanted ? "" : "not ")coalesce(public, false) from storage.buckets where id = \(bucket)"
                ],
                expectations: [.isTrue], location: intent.settings["read"] ?? intent.location)
        ]
    }

    /// Every check of the bucket; each expectation follows the declaration of its operation only.
    func checks() -> [PolicyCheck] {
        if let w = world { return visibility() + groupChecks(w) }
        var out = visibility()
        func add(
            _ actor: HarnessActor, _ op: String, _ setting: String, _ name: String, _ probe: Probe, _ ok: Bool,
            list: Bool = false
        ) {
            out.append(check(actor, op, setting, name, probe, ok, list: list))
        }
        let lister = intent.lister
        func lists(_ u: HarnessActor, _ name: String, _ object: String, owns: Bool) {
            add(
                u, "select", "list", name, listing(object), may(lister, owns: owns, user: u.kind == .user), list: true
            )
        }
        lists(a, "A lists own object", seeded(a), owns: true)
        lists(a, "A lists B's object", seeded(b), owns: false)
        lists(.anon, "anon lists A's object", seeded(a), owns: false)

        let up = intent.upload!
        let ov = intent.overwrite!
        let mv = intent.move!
        let dl = intent.delete!
        if byFolder {
            add(
                a, "insert", "upload", "A uploads into own folder", uploading(a, name(a, "new")),
                may(up, owns: true, user: true))
            add(
                a, "insert", "upload", "A uploads into B's folder", uploading(a, name(b, "new-a")),
                may(up, owns: false, user: true))
            add(
                a, "insert", "upload", "A uploads outside any folder", uploading(a, "rlskit-root.\(files.ext)"),
                may(up, owns: false, user: true))
            // The first folder owns the object at any depth: a policy that reads another folder
            // lets A in under B's folder (B/A/file) or shuts A out of its own (A/B/file).
            add(
                a, "insert", "upload", "A uploads into B's folder, under a sub-folder named for A",
                uploading(a, "\(b.uid)/\(a.uid)/rlskit-deep.\(files.ext)"), may(up, owns: false, user: true))
            add(
                a, "insert", "upload", "A uploads into own folder, under a sub-folder named for B",
                uploading(a, "\(a.uid)/\(b.uid)/rlskit-deep.\(files.ext)"), may(up, owns: true, user: true))
            add(
                .anon, "insert", "upload", "anon uploads into A's folder", uploading(.anon, name(a, "anon")),
                may(up, owns: false, user: false))
        } else {
            add(
                a, "insert", "upload", "A uploads a new object", uploading(a, name(a, "new")),
                may(up, owns: true, user: true))
            add(
                .anon, "insert", "upload", "anon uploads a new object", uploading(.anon, name(a, "anon")),
                may(up, owns: false, user: false))
        }
        if may(up, owns: true, user: true) {
            out += refusedUploads(a, "A", typed: name(a, "typed"), large: name(a, "large"))
        }

        add(
            a, "update", "overwrite", "A overwrites own object", uploading(a, seeded(a), upsert: true),
            may(ov, owns: true, user: true))
        add(
            a, "update", "overwrite", "A overwrites B's object", uploading(a, seeded(b), upsert: true),
            may(ov, owns: false, user: true))
        add(
            .anon, "update", "overwrite", "anon overwrites A's object", uploading(.anon, seeded(a), upsert: true),
            may(ov, owns: false, user: false))
        // No overwrite with a refused file: PostgreSQL applies the insert policy to an upsert's
        // new row too, so the upload checks above already cover it.

        add(
            a, "update", "move", "A moves own object", moving(a, seeded(a), to: name(a, "moved")),
            may(mv, owns: true, user: true))
        if byFolder {
            add(
                a, "update", "move", "A moves own object into B's folder", moving(a, seeded(a), to: name(b, "moved")),
                may(mv, owns: false, user: true))
        }
        add(
            a, "update", "move", "A moves B's object", moving(a, seeded(b), to: name(a, "taken")),
            may(mv, owns: false, user: true))
        add(
            .anon, "update", "move", "anon moves A's object", moving(.anon, seeded(a), to: name(a, "anon-moved")),
            may(mv, owns: false, user: false))

        add(a, "delete", "delete", "A deletes own object", deleting(seeded(a)), may(dl, owns: true, user: true))
        add(a, "delete", "delete", "A deletes B's object", deleting(seeded(b)), may(dl, owns: false, user: true))
        add(
            .anon, "delete", "delete", "anon deletes A's object", deleting(seeded(a)),
            may(dl, owns: false, user: false)
        )

        if let m = attacker {
            let others = { (v: Who) in may(v, owns: false, user: true) }
            lists(m, "M lists B's object", seeded(b), owns: false)
            if byFolder {
                add(m, "insert", "upload", "M uploads into B's folder", uploading(m, name(b, "m")), others(up))
            }
            add(m, "update", "overwrite", "M overwrites B's object", uploading(m, seeded(b), upsert: true), others(ov))
            if byFolder {
                add(
                    m, "update", "move", "M moves own object into B's folder",
                    moving(m, seeded(m), to: name(b, "m-moved")), others(mv))
            } else {
                add(m, "update", "move", "M moves B's object", moving(m, seeded(b), to: name(m, "m-taken")), others(mv))
            }
            add(m, "delete", "delete", "M deletes B's object", deleting(seeded(b)), others(dl))
        }
        // The declared roles' holders and forgers, on A's object.
        for x in roleActors {
            let u = x.actor
            let s = x.standing()
            let n = u.name
            add(u, "select", "list", "\(n) lists A's object", listing(seeded(a)), lister.allows(s), list: true)
            if byFolder {
                add(
                    u, "insert", "upload", "\(n) uploads into A's folder",
                    uploading(u, name(a, "by-\(u.uid.prefix(8))")), up.allows(s))
            }
            add(
                u, "update", "overwrite", "\(n) overwrites A's object", uploading(u, seeded(a), upsert: true),
                ov.allows(s))
            add(
                u, "update", "move", "\(n) moves A's object",
                moving(u, seeded(a), to: name(a, "moved-\(u.uid.prefix(8))")),
                mv.allows(s))
            add(u, "delete", "delete", "\(n) deletes A's object", deleting(seeded(a)), dl.allows(s))
        }
        return out
    }
}
