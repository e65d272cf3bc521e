import Postgres

/// 1008: the guard a NULL skips. A row is seeded as the victim's in each table the body names,
/// then anon (when it may call the function) and a stranger who has no row anywhere call it
/// with the victim's values; proven when the call gets past the guard and writes rows or
/// returns the victim's.
extension ProofContext {
    func guardedFunction(_ f: Finding) throws -> Proof {
        let candidates = try FunctionProbe.candidates(conn, exposedSchemas: [f.object.schema])
        guard let c = candidates.first(where: { $0.schema == f.object.schema && $0.signature == f.object.name }) else {
            throw Unprovable(
                reason: "rlskit does not call it: its body reaches outside the database or does what no test may")
        }
        if let why = FunctionProbe.unfillable(c) { throw Unprovable(reason: "rlskit cannot call it: \(why)") }
        let victim = HarnessActor.user("victim")
        let stranger = HarnessActor.user("stranger")
        try signUp([victim, stranger])
        let words = FunctionProbe.bodyWords(c.body)
        var tables: [(String, String)] = []
        for col in c.columns
        where words.contains(col.table.lowercased()) && !tables.contains(where: { $0 == (col.schema, col.table) }) {
            tables.append((col.schema, col.table))
        }
        for (schema, name) in tables {
            let t = try table(schema, name)
            _ = try? seed(t, owner: victim.uid, ownerColumn: Self.ownerColumn(t), n: 1)
        }
        var refused: [String] = []
        let callers: [(HarnessActor, String)] =
            (c.anon ? [(HarnessActor.anon, "anon")] : []) + (c.authenticated ? [(stranger, Self.strangerLabel)] : [])
        for (actor, label) in callers {
            let o = try FunctionProbe.probe(
                c, as: actor, label: label, others: [victim.uid, victim.email], victim: victim.uid, conn)
            if let unfilled = o.unfilled { return .notProven(unfilled) }
            if let r = o.refused {
                refused.append("\(actor.name)'s call was stopped (\(r))")
                continue
            }
            guard o.isFinding else {
                refused.append(
                    "\(actor.name)'s call got past the guard but changed no row and returned none of the victim's")
                continue
            }
            let written = o.writes.reduce(0) { n, w in n + w.split(separator: " ").compactMap { Int($0) }.reduce(0, +) }
            var effect = ["got past the guard"]
            if !o.writes.isEmpty { effect.append("wrote (\(o.writes.joined(separator: "; ")))") }
            if o.othersRows > 0 { effect.append("returned the victim's rows") }
            if !o.privileged.isEmpty { effect.append("made the server send \(o.privileged.joined(separator: ", "))") }
            return Self.proven(
                actor, label: label,
                request: "POST /rest/v1/rpc/\(c.name)"
                    + (c.schema == "public" ? "" : " (Content-Profile: \(c.schema))"),
                sql: "select * from \(AuditNames.function(c.schema, c.signature))",
                effect: effect.joined(separator: ", "),
                rows: written + o.othersRows, keys: [])
        }
        return .notProven(refused.joined(separator: "; "))
    }
}
