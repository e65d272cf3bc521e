/// The matrix of a table no user owns (a price list, an audit log, a reference table): a
/// signed-in user, anon and the declared roles read, insert, update and delete a seeded row.
struct CatalogMatrix {
    let info: TableInfo
    let intent: TableIntent
    let roleActors: [MatrixActor]
    let serviceRole: Bool
    /// Method, path, headers and read-only mode of each check, as PostgREST sets them.
    var request: APIRequest {
        APIRequest(schema: info.schema, table: info.name, headers: headers, preRequest: preRequest)
    }
    var headers: [APIHeader] = []
    var preRequest: String?

    var t: String { info.sqlName }
    var seeder: Seeder { Seeder(table: info, intent: intent) }
    /// The seeded row, found again by its physical address (the table may have no key).
    var row: String { "ctid = current_setting('rlskit.catalog_row')::tid" }

    var touchColumn: String? {
        let keys = Set(info.uniqueKeys.flatMap { $0 })
        return (info.columns.first { $0.writable && !keys.contains($0.name) } ?? info.columns.first { $0.writable })
            .map { SQL.ident($0.name) }
    }

    var users: [HarnessActor] { [user.actor, HarnessActor.anon] + roleActors.map(\.actor) }
    let user = MatrixActor(actor: .user("A"))
    /// A signed-up user who is none of the actors: the seeded row's and its parents' columns
    /// referencing auth.users (or defaulting to auth.uid()) hold a real user, who is nobody checked.
    let keeper = HarnessActor.user("row owner")

    func seedScript() -> String {
        let r = seeder.row(owner: keeper.uid, n: 1)
        let columns = InsertSQL.values(r.columns, r.values)
        var sql = seeder.parents.script(owners: [keeper.uid] + users.map(\.uid))
        sql += serviceRole ? "select set_config('role', 'service_role', true);\n" : ""
        sql +=
            "with r as (insert into \(t)\(columns) returning ctid) select set_config('rlskit.catalog_row', ctid::text, true) from r;\n"
        if serviceRole { sql += "select set_config('role', null, true);\n" }
        return sql
    }

    func unit() -> HarnessUnit {
        let suite = info.qualifiedName
        if let p = seeder.problem { return HarnessUnit(suite: suite, notCovered: p, location: intent.location) }
        guard let touch = touchColumn else {
            return HarnessUnit(
                suite: suite, notCovered: "the table has no column rlskit can write", location: intent.location)
        }
        let b = MatrixChecks(suite: suite, table: t, location: intent.location, request: request)
        func on(_ command: String, set: [(String, String)] = []) -> CheckRow {
            CheckRow(table: t, name: info.name, command: command, role: "", existing: row, assignments: set)
        }
        let anon = MatrixActor(actor: users[1])
        var n = 4000
        for x in [user, anon] + roleActors {
            let u = x.actor
            let s = x.standing()
            n += 1
            b.add(
                u, "select", "\(u.name) reads the row", "select count(*) from \(t) where \(row)",
                intent.read!.allows(s),
                on("SELECT"))
            let r = seeder.row(owner: u.uid, n: n)
            b.add(
                u, "insert", "\(u.name) inserts a row", seeder.insert(owner: u.uid, n: n), intent.insert!.allows(s),
                CheckRow(table: t, name: info.name, command: "INSERT", role: "", insert: (r.columns, r.values)))
            b.add(
                u, "update", "\(u.name) updates the row", "update \(t) set \(touch) = \(touch) where \(row)",
                intent.update!.allows(s), on("UPDATE", set: [(touch, touch)]))
            b.add(
                u, "delete", "\(u.name) deletes the row", "delete from \(t) where \(row)", intent.delete!.allows(s),
                on("DELETE"))
        }
        return HarnessUnit(
            suite: suite, users: [user.actor, keeper] + roleActors.map(\.actor), setup: seedScript(), checks: b.checks,
            location: intent.location)
    }
}
