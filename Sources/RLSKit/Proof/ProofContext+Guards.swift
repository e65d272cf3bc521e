import Postgres

/// 1008: the guard a NULL skips. A row is seeded as the victim's in each table the body names,
/// then anon (when it may call the function) and a stranger who has no row anywhere call it
/// with the victim's values; proven when the call gets past the guard and writes rows or
/// returns the victim's.
extension ProofContext {
    func guardedFunction(_ f: Finding) throws -> Proof {
        let c = try callable(f)
        let victim = HarnessActor.user("victim")
        let stranger = HarnessActor.user("stranger")
        try signUp([victim, stranger])
        _ = try seedVictimRows(readBy: c.body, victim: victim)
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
            var effect = ["got past the guard"]
            if !o.writes.isEmpty { effect.append("wrote (\(o.writes.joined(separator: "; ")))") }
            if o.othersRows > 0 { effect.append("returned the victim's rows") }
            if !o.privileged.isEmpty { effect.append("made the server send \(o.privileged.joined(separator: ", "))") }
            return Self.proven(
                actor, label: label,
                request: Self.rpcRequest(c),
                sql: "select * from \(AuditNames.function(c.schema, c.signature))",
                effect: effect.joined(separator: ", "),
                rows: Self.rowsWritten(o) + o.othersRows, keys: [])
        }
        return .notProven(refused.joined(separator: "; "))
    }
}
