/// The bucket matrix's statements with the object each is about (see `CheckRow`), so that a
/// failed check can name the storage policies that decided it.
extension BucketMatrix {
    typealias Probe = (sql: String, row: CheckRow?)

    static let uploadColumns = ["bucket_id", "name", "owner", "owner_id", "version", "metadata"]

    /// What the Storage API's upload check inserts: owner and owner_id are the caller's sub.
    func uploadValues(_ u: HarnessActor, _ name: String, mimetype: String? = nil, size: Int? = nil) -> [String] {
        let owner = u.kind == .user ? SQL.literal(u.uid) : "null"
        let meta = SQL.literal(files.checked(mimetype: mimetype, size: size))
        return [bucket, SQL.literal(name), "\(owner)::uuid", owner, "'1'", "\(meta)::jsonb"]
    }

    func object(_ command: String, _ name: String) -> CheckRow {
        CheckRow(table: "storage.objects", name: "objects", command: command, role: "", existing: whereName(name))
    }

    func listing(_ name: String) -> Probe { (list(name), object("SELECT", name)) }

    func uploading(
        _ u: HarnessActor, _ name: String, upsert: Bool = false, mimetype: String? = nil, size: Int? = nil
    ) -> Probe {
        var r =
            upsert
            ? object("INSERT", name)
            : CheckRow(table: "storage.objects", name: "objects", command: "INSERT", role: "")
        r.insert = (Self.uploadColumns, uploadValues(u, name, mimetype: mimetype, size: size))
        r.upsert = upsert
        r.returning = upsert
        return (upload(u, name, upsert: upsert, mimetype: mimetype, size: size), r)
    }

    func moving(_ u: HarnessActor, _ from: String, to: String) -> Probe {
        let owner = u.kind == .user ? SQL.literal(u.uid) : "null"
        var r = object("UPDATE", from)
        r.assignments = [("name", SQL.literal(to)), ("owner", "\(owner)::uuid"), ("owner_id", owner)]
        r.returning = true
        return (move(u, from, to: to), r)
    }

    func deleting(_ name: String) -> Probe {
        var r = object("DELETE", name)
        r.returning = true
        return (delete(name), r)
    }
}
