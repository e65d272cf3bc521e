/// The bucket matrix's statements with the object each is about (see `CheckRow`).
extension BucketMatrix {
    typealias Probe = (sql: String, row: CheckRow?)

    static let uploadColumns = ["bucket_id", "name", "owner", "owner_id", "version", "metadata"]

    /// What the Storage API inserts: owner and owner_id are the caller's sub.
    func uploadValues(_ u: HarnessActor, _ name: String) -> [String] {
        let owner = u.kind == .user ? SQL.literal(u.uid) : "null"
        return [bucket, SQL.literal(name), "\(owner)::uuid", owner, "gen_random_uuid()::text", "'{\"size\": 1}'"]
    }

    func object(_ command: String, _ name: String) -> CheckRow {
        CheckRow(table: "storage.objects", name: "objects", command: command, role: "", existing: whereName(name))
    }

    func listing(_ name: String) -> Probe {
        ("select count(*) from storage.objects where " + whereName(name), object("SELECT", name))
    }

    func uploading(_ u: HarnessActor, _ name: String) -> Probe {
        let r = CheckRow(
            table: "storage.objects", name: "objects", command: "INSERT", role: "",
            insert: (Self.uploadColumns, uploadValues(u, name)))
        return (upload(u, name), r)
    }

    func overwriting(_ u: HarnessActor, _ name: String) -> Probe {
        var r = object("INSERT", name)
        r.insert = (Self.uploadColumns, uploadValues(u, name))
        r.upsert = true
        r.returning = true
        return (upload(u, name, upsert: true), r)
    }

    func moving(_ name: String, to newName: String) -> Probe {
        var r = object("UPDATE", name)
        r.assignments = [("name", SQL.literal(newName))]
        return ("update storage.objects set name = \(SQL.literal(newName)) where \(whereName(name))", r)
    }

    func deleting(_ name: String) -> Probe {
        var r = object("DELETE", name)
        r.returning = true
        return ("delete from storage.objects where \(whereName(name)) returning *", r)
    }
}
