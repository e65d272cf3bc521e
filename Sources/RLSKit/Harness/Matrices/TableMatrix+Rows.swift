/// The rows the own-row matrix's checks are about (see `CheckRow`); the role is the actor's.
extension TableMatrix {
    func row(_ command: String, of u: HarnessActor) -> CheckRow {
        CheckRow(table: t, name: info.name, command: command, role: "", existing: whereOwner(u))
    }

    func reading(_ u: HarnessActor) -> CheckRow { row("SELECT", of: u) }
    func deleting(_ u: HarnessActor) -> CheckRow { row("DELETE", of: u) }

    func updating(_ u: HarnessActor, set column: String, to value: String) -> CheckRow {
        var r = row("UPDATE", of: u)
        r.assignments = [(column, value)]
        return r
    }

    /// The row `insert(u)` made with counter `n`.
    func inserting(_ u: HarnessActor, n: Int) -> CheckRow {
        let r = seeder.row(owner: u.uid, n: n)
        return CheckRow(table: t, name: info.name, command: "INSERT", role: "", insert: (r.columns, r.values))
    }
}
