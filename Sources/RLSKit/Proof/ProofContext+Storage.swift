import Foundation
import Postgres

/// 1001: a storage write policy with no owner or folder check. The attacker (anon when the
/// policy applies to it, else a stranger) uploads into the victim's folder as the Storage API
/// inserts (owner = owner_id = the caller's sub, its settings and search path); for UPDATE, a
/// victim's object is seeded and the attacker overwrites it (UPDATE … RETURNING, as a move or
/// an upsert does).
extension ProofContext {
    func storageWrite(_ f: Finding) throws -> Proof {
        let victim = HarnessActor.user("victim")
        let stranger = HarnessActor.user("stranger")
        try signUp([victim, stranger])
        let bucket = try proofBucket(f)
        let roles = Set((f.metadata["roles"] ?? "").split(separator: ",").map(String.init))
        let attackers: [HarnessActor] =
            roles.contains("anon") || roles.contains("public") ? [.anon, stranger] : [stranger]
        let command = f.metadata["command"] ?? "INSERT"
        let name = "\(victim.uid)/rlskit-proof-\(UUID().uuidString.prefix(8).lowercased()).png"
        let meta = SQL.literal(#"{"mimetype":"image/png","size":1024}"#)
        var refused: [String] = []
        for actor in attackers {
            let owner = actor.kind == .user ? SQL.literal(actor.uid) : "null"
            if command == "INSERT" || command == "ALL" {
                let sql =
                    "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata) values ("
                    + "\(SQL.literal(bucket)), \(SQL.literal(name)), \(owner)::uuid, \(owner), '1', \(meta)::jsonb)"
                switch try sendStorage(actor, "storage.object.upload", sql) {
                case .success(let n) where n > 0:
                    return Self.proven(
                        actor, request: "POST /storage/v1/object/\(bucket)/\(name)", sql: sql,
                        effect: "uploaded under another user's id (\(victim.uid)/…)", rows: n, keys: ["name=\(name)"])
                case .success: refused.append("\(actor.name)'s upload wrote no row")
                case .failure(let e): refused.append("\(actor.name)'s upload was \(Self.refusal(e))")
                }
            }
            if command == "UPDATE" || command == "ALL" {
                try seedObject(bucket: bucket, name: name, owner: victim.uid)
                let sql =
                    "update storage.objects set owner = \(owner)::uuid, owner_id = \(owner), version = gen_random_uuid()::text,"
                    + " metadata = \(meta)::jsonb where bucket_id = \(SQL.literal(bucket)) and name = \(SQL.literal(name)) returning name"
                switch try sendStorage(actor, "storage.object.upload", sql) {
                case .success(let n) where n > 0:
                    return Self.proven(
                        actor, request: "PUT /storage/v1/object/\(bucket)/\(name) (x-upsert: true)", sql: sql,
                        effect: "overwrote another user's object", rows: n, keys: ["name=\(name)"])
                case .success: refused.append("\(actor.name)'s overwrite reached no row")
                case .failure(let e): refused.append("\(actor.name)'s overwrite was \(Self.refusal(e))")
                }
            }
        }
        return .notProven(refused.joined(separator: "; "))
    }

    /// The bucket the policy names (made, rolled back, when it does not exist yet), else any.
    func proofBucket(_ f: Finding) throws -> String {
        let named = (f.metadata["buckets"] ?? "").split(separator: ",").map(String.init)
        for b in named {
            let exists: Bool = try conn.query("select exists (select 1 from storage.buckets where id = $1)", [b]).rows[
                0
            ]
            .decode(0)
            if !exists { try conn.query("insert into storage.buckets (id, name) values ($1, $1)", [b]) }
            return b
        }
        if let any: String = try conn.query("select id from storage.buckets order by created_at nulls last, id limit 1")
            .rows.first?.decode(0)
        {
            return any
        }
        try conn.query("insert into storage.buckets (id, name) values ('rlskit-proof', 'rlskit-proof')")
        return "rlskit-proof"
    }

    func seedObject(bucket: String, name: String, owner: String) throws {
        var uploader = HarnessActor.user("victim")
        uploader.id = UUID(uuidString: owner) ?? uploader.id
        try conn.query("select true" + HarnessActor.storageRequest("storage.object.upload", caller: uploader))
        try conn.query(
            "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata) values ($1, $2, $3::uuid, $3, '1', '{}')"
                + " on conflict do nothing", [bucket, name, owner])
    }

    /// `sql` as `actor` with the Storage API's settings; the rows it wrote or returned.
    func sendStorage(_ actor: HarnessActor, _ operation: String, _ sql: String) throws -> Result<Int, PostgresError> {
        let settings =
            actor.impersonation(storage: operation)
            + ", set_config('search_path', \(SQL.literal(BucketMatrix.storageSearchPath)), true)"
        return try undone(settings) {
            let r = try conn.query(sql)
            return r.affectedRows ?? r.rows.count
        }
    }
}
