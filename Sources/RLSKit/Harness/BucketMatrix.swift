/// The own-folder matrix of one declared bucket, run the way the Storage API runs it:
/// uploads are INSERTs as the caller with owner = owner_id = sub, overwrites are upserts,
/// deletes are DELETE … RETURNING, all with the Storage API's settings.
struct BucketMatrix {
    let intent: BucketIntent
    let policyTexts: [String]
    let serviceRole: Bool
    let a = HarnessActor.user("A"), b = HarnessActor.user("B")
    let attacker: HarnessActor?

    init(intent: BucketIntent, storagePolicyTexts: [String], serviceRole: Bool) {
        self.intent = intent
        policyTexts = storagePolicyTexts
        self.serviceRole = serviceRole
        attacker =
            ClaimAttack.readsClaims(storagePolicyTexts)
            ? .user("M", metadata: ClaimAttack.metadata(for: storagePolicyTexts)) : nil
    }

    var users: [HarnessActor] { [a, b] + (attacker.map { [$0] } ?? []) }
    var bucket: String { SQL.literal(intent.id) }
    func seeded(_ u: HarnessActor) -> String { "\(u.uid)/rlskit-\(u.name.lowercased()).png" }

    func whereName(_ name: String) -> String { "bucket_id = \(bucket) and name = \(SQL.literal(name))" }

    func upload(_ u: HarnessActor, _ name: String, upsert: Bool = false) -> String {
        var sql =
            "insert into storage.objects (\(Self.uploadColumns.joined(separator: ", "))) values ("
            + uploadValues(u, name).joined(separator: ", ") + ")"
        if upsert {
            sql +=
                " on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,"
                + " version = excluded.version, metadata = excluded.metadata, updated_at = now() returning *"
        }
        return sql
    }

    func seedScript() -> String {
        var sql = serviceRole ? "select set_config('role', 'service_role', true);\n" : ""
        for u in users { sql += upload(u, seeded(u)) + ";\n" }
        if serviceRole { sql += "select set_config('role', 'none', true);\n" }
        return sql
    }

    func unit() -> HarnessUnit {
        let suite = "bucket \(intent.id)"
        var checks: [PolicyCheck] = []
        func add(
            _ actor: HarnessActor, _ op: String, _ storageOp: String, _ name: String, _ probe: Probe,
            _ e: Expectation
        ) {
            checks.append(
                PolicyCheck(
                    suite: suite, actor: actor.label, operation: op, name: name,
                    statements: [actor.impersonation(storage: storageOp), probe.sql], expectations: [e],
                    location: intent.location,
                    row: probe.row.map {
                        var r = $0; r.role = actor.role; return r
                    }))
        }
        let read = intent.read!, write = intent.write!
        let own = write == .ownFolder
        if read != .anyone {
            let publicWanted = read == .public
            checks.append(
                PolicyCheck(
                    suite: suite, actor: "admin", operation: "select",
                    name: publicWanted
                        ? "bucket is public (files served by URL)" : "bucket is private (no public URLs)",
                    statements: [
                        "select \(publicWanted ? "" : "not ")coalesce(public, false) from storage.buckets where id = \(bucket)"
                    ],
                    expectations: [.isTrue], location: intent.location))
        }
        let othersVisible = read == .anyone || read == .signedIn
        add(
            a, "select", "storage.object.list", "A lists own object", listing(seeded(a)),
            read == .nobody ? .hidden : .visible)
        add(
            a, "select", "storage.object.list", "A lists B's object", listing(seeded(b)),
            othersVisible ? .visible : .hidden)
        add(
            .anon, "select", "storage.object.list", "anon lists A's object", listing(seeded(a)),
            read == .anyone ? .visible : .hidden)

        add(
            a, "insert", "storage.object.upload", "A uploads into own folder", uploading(a, "\(a.uid)/rlskit-new.png"),
            own ? .allowed : .blocked)
        add(
            a, "insert", "storage.object.upload", "A uploads into B's folder", uploading(a, "\(b.uid)/rlskit-new.png"),
            .blocked)
        add(
            a, "insert", "storage.object.upload", "A uploads outside any folder", uploading(a, "rlskit-root.png"),
            .blocked
        )
        add(
            .anon, "insert", "storage.object.upload", "anon uploads into A's folder",
            uploading(.anon, "\(a.uid)/rlskit-anon.png"), .blocked)

        add(
            a, "update", "storage.object.upload", "A overwrites own object", overwriting(a, seeded(a)),
            own ? .allowed : .blocked)
        add(
            a, "update", "storage.object.upload", "A overwrites B's object", overwriting(a, seeded(b)),
            .blocked)
        add(
            a, "update", "storage.object.move", "A moves own object into B's folder",
            moving(seeded(a), to: "\(b.uid)/rlskit-moved.png"),
            .blocked)

        add(
            a, "delete", "storage.object.delete", "A deletes own object", deleting(seeded(a)),
            own ? .allowed : .blocked)
        add(
            a, "delete", "storage.object.delete", "A deletes B's object", deleting(seeded(b)),
            .blocked)
        add(
            .anon, "delete", "storage.object.delete", "anon deletes A's object",
            deleting(seeded(a)), .blocked)

        if let m = attacker {
            add(
                m, "select", "storage.object.list", "M lists B's object", listing(seeded(b)),
                othersVisible ? .visible : .hidden)
            add(
                m, "insert", "storage.object.upload", "M uploads into B's folder",
                uploading(m, "\(b.uid)/rlskit-m.png"),
                .blocked)
            add(
                m, "update", "storage.object.upload", "M overwrites B's object", overwriting(m, seeded(b)),
                .blocked)
            add(
                m, "update", "storage.object.move", "M moves own object into B's folder",
                moving(seeded(m), to: "\(b.uid)/rlskit-m-moved.png"),
                .blocked)
            add(
                m, "delete", "storage.object.delete", "M deletes B's object",
                deleting(seeded(b)), .blocked)
        }
        return HarnessUnit(suite: suite, users: users, setup: seedScript(), checks: checks, location: intent.location)
    }
}
