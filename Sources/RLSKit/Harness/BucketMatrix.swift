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
    /// Listing is a read: run it as PostgREST runs GET requests, in a READ ONLY transaction.
    let readOnly = ", set_config('transaction_read_only', 'on', true)"
    func seeded(_ u: HarnessActor) -> String { "\(u.uid)/rlskit-\(u.name.lowercased()).png" }

    func whereName(_ name: String) -> String { "bucket_id = \(bucket) and name = \(SQL.literal(name))" }

    func upload(_ u: HarnessActor, _ name: String, upsert: Bool = false) -> String {
        let owner = u.kind == .user ? SQL.literal(u.uid) : "null"
        var sql =
            "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata) values ("
            + "\(bucket), \(SQL.literal(name)), \(owner)::uuid, \(owner), gen_random_uuid()::text, '{\"size\": 1}')"
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
            _ actor: HarnessActor, _ op: String, _ storageOp: String, _ name: String, _ sql: String, _ e: Expectation
        ) {
            checks.append(
                PolicyCheck(
                    suite: suite, actor: actor.label, operation: op, name: name,
                    statements: [actor.impersonation(storage: storageOp) + (op == "select" ? readOnly : ""), sql],
                    expectations: [e],
                    location: intent.location))
        }
        let read = intent.read!, write = intent.write!
        let own = write == .ownFolder
        let list = "select count(*) from storage.objects where "
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
            a, "select", "storage.object.list", "A lists own object", list + whereName(seeded(a)),
            read == .nobody ? .hidden : .visible)
        add(
            a, "select", "storage.object.list", "A lists B's object", list + whereName(seeded(b)),
            othersVisible ? .visible : .hidden)
        add(
            .anon, "select", "storage.object.list", "anon lists A's object", list + whereName(seeded(a)),
            read == .anyone ? .visible : .hidden)

        add(
            a, "insert", "storage.object.upload", "A uploads into own folder", upload(a, "\(a.uid)/rlskit-new.png"),
            own ? .allowed : .blocked)
        add(
            a, "insert", "storage.object.upload", "A uploads into B's folder", upload(a, "\(b.uid)/rlskit-new.png"),
            .blocked)
        add(
            a, "insert", "storage.object.upload", "A uploads outside any folder", upload(a, "rlskit-root.png"), .blocked
        )
        add(
            .anon, "insert", "storage.object.upload", "anon uploads into A's folder",
            upload(.anon, "\(a.uid)/rlskit-anon.png"), .blocked)

        add(
            a, "update", "storage.object.upload", "A overwrites own object", upload(a, seeded(a), upsert: true),
            own ? .allowed : .blocked)
        add(
            a, "update", "storage.object.upload", "A overwrites B's object", upload(a, seeded(b), upsert: true),
            .blocked)
        add(
            a, "update", "storage.object.move", "A moves own object into B's folder",
            "update storage.objects set name = \(SQL.literal("\(b.uid)/rlskit-moved.png")) where \(whereName(seeded(a)))",
            .blocked)

        let del = "delete from storage.objects where "
        add(
            a, "delete", "storage.object.delete", "A deletes own object", del + whereName(seeded(a)) + " returning *",
            own ? .allowed : .blocked)
        add(
            a, "delete", "storage.object.delete", "A deletes B's object", del + whereName(seeded(b)) + " returning *",
            .blocked)
        add(
            .anon, "delete", "storage.object.delete", "anon deletes A's object",
            del + whereName(seeded(a)) + " returning *", .blocked)

        if let m = attacker {
            add(
                m, "select", "storage.object.list", "M lists B's object", list + whereName(seeded(b)),
                othersVisible ? .visible : .hidden)
            add(
                m, "insert", "storage.object.upload", "M uploads into B's folder", upload(m, "\(b.uid)/rlskit-m.png"),
                .blocked)
            add(
                m, "update", "storage.object.upload", "M overwrites B's object", upload(m, seeded(b), upsert: true),
                .blocked)
            add(
                m, "update", "storage.object.move", "M moves own object into B's folder",
                "update storage.objects set name = \(SQL.literal("\(b.uid)/rlskit-m-moved.png")) where \(whereName(seeded(m)))",
                .blocked)
            add(
                m, "delete", "storage.object.delete", "M deletes B's object",
                del + whereName(seeded(b)) + " returning *", .blocked)
        }
        return HarnessUnit(suite: suite, users: users, setup: seedScript(), checks: checks, location: intent.location)
    }
}
