import Foundation

/// The matrix of one declared bucket, run the way the Storage API checks permissions: uploads are
/// INSERTs as the caller with owner = owner_id = sub and the file's type and length in metadata,
/// overwrites are upserts, moves and deletes UPDATE / DELETE … RETURNING, all with the Storage
/// API's settings.
/// Who owns an object follows the bucket's ownership: its first folder, or its owner_id.
struct BucketMatrix {
    let intent: BucketIntent
    let policyTexts: [String]
    let serviceRole: Bool
    let files: BucketUploads
    let a = HarnessActor.user("A"), b = HarnessActor.user("B")
    let attacker: HarnessActor?
    /// The declared roles' holders and forgers.
    let roleActors: [MatrixActor]
    /// The groups of a group bucket (`ownership group`).
    let world: GroupWorld?
    /// Names in owner-id buckets are random, as apps make them, one folder deep as apps put
    /// them (a trigger reading `path_tokens[2]`, the file's name under its folder, finds one).
    let salt = UUID().uuidString.prefix(8).lowercased()

    init(
        intent: BucketIntent, storagePolicyTexts: [String], serviceRole: Bool, facts: BucketFacts = BucketFacts(),
        hook: Bool = false, roleActors: [MatrixActor] = [], world: GroupWorld? = nil
    ) {
        self.intent = intent
        self.roleActors = roleActors
        self.world = world
        policyTexts = storagePolicyTexts
        self.serviceRole = serviceRole
        files = BucketUploads(intent: intent, facts: facts)
        attacker = ClaimAttack.attacker(storagePolicyTexts, hook: hook)
    }

    var users: [HarnessActor] {
        (world.map { $0.users } ?? [a, b]) + (attacker.map { [$0] } ?? []) + roleActors.map(\.actor)
    }
    var bucket: String { SQL.literal(intent.id) }
    var byFolder: Bool { intent.model == .folder }

    /// A new object name of `u`'s: in its folder, or at the root.
    func name(_ u: HarnessActor, _ tag: String) -> String {
        byFolder ? "\(u.uid)/rlskit-\(tag).\(files.ext)" : "rlskit-\(salt)/\(tag).\(files.ext)"
    }
    func seeded(_ u: HarnessActor) -> String { name(u, u.name.lowercased()) }
    /// Listing is a read: run it as PostgREST runs GET requests, in a READ ONLY transaction.
    let readOnly = ", set_config('transaction_read_only', 'on', true)"
    /// The Storage API's search_path on its connections (`storage, public, extensions`), so a trigger
    /// an upload fires resolves names as there. Each check is undone alone, its setting with it.
    var storagePath: String { ", set_config('search_path', \(SQL.literal(BucketMatrix.storageSearchPath)), true)" }
    static let storageSearchPath = "storage, public, extensions"

    func whereName(_ name: String) -> String { "bucket_id = \(bucket) and name = \(SQL.literal(name))" }

    /// The Storage API's permission check for an upload, as the caller: a plain INSERT, or with
    /// `upsert` INSERT … ON CONFLICT DO UPDATE … RETURNING *; `stored` writes a finished object.
    func upload(
        _ u: HarnessActor, _ name: String, upsert: Bool = false, mimetype: String? = nil, size: Int? = nil,
        stored: Bool = false
    ) -> String {
        let owner = u.kind == .user ? SQL.literal(u.uid) : "null"
        let meta = SQL.literal(stored ? files.stored() : files.checked(mimetype: mimetype, size: size))
        let version = stored ? "gen_random_uuid()::text" : "'1'"
        var sql =
            "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata) values ("
            + "\(bucket), \(SQL.literal(name)), \(owner)::uuid, \(owner), \(version), \(meta)::jsonb)"
        if upsert {
            sql +=
                " on conflict (name, bucket_id) do update set metadata = excluded.metadata, version = excluded.version,"
                + " owner = excluded.owner, owner_id = excluded.owner_id returning *"
        }
        return sql
    }

    /// A move's permission check as the mover: new name, the mover as owner, RETURNING (none back: refused).
    func move(_ u: HarnessActor, _ from: String, to: String) -> String {
        let owner = u.kind == .user ? SQL.literal(u.uid) : "null"
        return "update storage.objects set name = \(SQL.literal(to)), bucket_id = \(bucket), owner = \(owner)::uuid,"
            + " owner_id = \(owner), version = gen_random_uuid()::text where \(whereName(from)) returning *"
    }

    func delete(_ from: String) -> String { "delete from storage.objects where \(whereName(from)) returning *" }
    func list(_ name: String) -> String { "select count(*) from storage.objects where \(whereName(name))" }

    /// Each user's object (a group bucket: one in each group's folder), written as the Storage API
    /// writes a finished upload.
    func seedScript() -> String {
        var sql = world?.seedScript(serviceRole: serviceRole) ?? ""
        sql +=
            serviceRole
            ? "select set_config('rlskit.search_path', current_setting('search_path'), true),"
                + " set_config('role', 'service_role', true)\(storagePath);\n" : ""
        // The uploader's request settings, kept by the Storage API while it writes the finished object.
        func request(_ u: HarnessActor) -> String {
            "select true" + HarnessActor.storageRequest("storage.object.upload", caller: u) + ";\n"
        }
        if let w = world {
            sql += request(w.plain.actor) + upload(w.plain.actor, seededIn(w.g1Key), stored: true) + ";\n"
            sql += request(w.g2Owner.actor) + upload(w.g2Owner.actor, seededIn(w.g2Key), stored: true) + ";\n"
        } else {
            for u in [a, b] + (attacker.map { [$0] } ?? []) {
                sql += request(u) + upload(u, seeded(u), stored: true) + ";\n"
            }
        }
        if serviceRole {
            sql +=
                "select set_config('role', null, true),"
                + " set_config('search_path', current_setting('rlskit.search_path'), true);\n"
        }
        return sql
    }

    func unit() -> HarnessUnit {
        let suite = "bucket \(intent.id)"
        if let p = world?.problem { return HarnessUnit(suite: suite, notCovered: p, location: intent.location) }
        var unit = HarnessUnit(
            suite: suite, users: users, setup: seedScript(), checks: checks(), location: intent.location)
        unit.storage = true
        return unit
    }
}
