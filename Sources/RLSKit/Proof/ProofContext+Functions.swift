import Postgres

/// 0028: anon calls the function as RPC, with arguments taken from the rows (a signed-up
/// user's id first), as `rlskit test`'s probe calls it. Proven only when the call succeeds
/// and writes rows, returns another user's rows, or queues a request carrying the project's
/// service credentials (the Storage or Auth API would then act for anon).
extension ProofContext {
    func function(_ f: Finding) throws -> Proof {
        let candidates = try FunctionProbe.candidates(conn, exposedSchemas: [f.object.schema])
        guard let c = candidates.first(where: { $0.schema == f.object.schema && $0.signature == f.object.name }) else {
            throw Unprovable(
                reason: "rlskit does not call it: its body reaches outside the database or does what no test may")
        }
        if let why = FunctionProbe.unfillable(c) { throw Unprovable(reason: "rlskit cannot call it: \(why)") }
        let victim = HarnessActor.user("victim")
        try signUp([victim])
        let o = try FunctionProbe.probe(
            c, as: .anon, label: "anon", others: [victim.uid, victim.email], victim: victim.uid, conn)
        let request = "POST /rest/v1/rpc/\(c.name)" + (c.schema == "public" ? "" : " (Content-Profile: \(c.schema))")
        if let unfilled = o.unfilled { return .notProven(unfilled) }
        if let refused = o.refused { return .notProven("anon's call raised: \(refused)") }
        guard o.isFinding else {
            return .notProven("anon's call succeeded but changed no row and returned no other user's row")
        }
        let written = o.writes.reduce(0) { n, w in
            n + w.split(separator: " ").compactMap { Int($0) }.reduce(0, +)
        }
        var effect: [String] = []
        if !o.writes.isEmpty { effect.append("wrote (\(o.writes.joined(separator: "; ")))") }
        if o.othersRows > 0 { effect.append("returned another user's rows") }
        if !o.privileged.isEmpty {
            effect.append("made the server send \(o.privileged.joined(separator: ", ")) (recorded, not sent)")
        }
        if !o.catalogChanges.isEmpty {
            effect.append("changed the catalog (\(o.catalogChanges.joined(separator: "; ")))")
        }
        return Self.proven(
            .anon, request: request, sql: "select * from \(AuditNames.function(c.schema, c.signature))",
            effect: effect.joined(separator: ", "), rows: written + o.othersRows, keys: [])
    }
}
