import Postgres

/// Tables with row level security off (0013, 0007, 0023): anon, then a stranger, reads the
/// table (a row seeded as someone else's); when neither can read, an insert is tried.
extension ProofContext {
    func tableWithoutRLS(_ f: Finding) throws -> Proof {
        let t = try table(f.object.schema, f.object.name)
        if t.rlsEnabled { throw Unprovable(reason: "row level security is enabled on \(t.qualifiedName) now") }
        let victim = HarnessActor.user("victim")
        let stranger = HarnessActor.user("stranger")
        try signUp([victim, stranger])
        let owner = Self.ownerColumn(t)
        var seedProblem: String?
        do { _ = try seed(t, owner: victim.uid, ownerColumn: owner, n: 1) } catch let e as Unprovable {
            seedProblem = e.reason
        }
        var refused: [String] = []
        // 0023 reads the sensitive columns themselves.
        let read = try readSQL(t, columns: f.lint == Lint.sensitiveColumnsExposed.name ? f.metadata["columns"] : nil)
        let columns = f.metadata["columns"].map { " with \($0)" } ?? ""
        for actor in [HarnessActor.anon, stranger] {
            switch try send(actor, "select", on: t, read) {
            case .read(let keys, let n) where n > 0:
                return Self.proven(
                    actor, request: "GET \(Self.path(t))?select=*" + Self.profile(t, reading: true), sql: read,
                    effect: "read" + columns, rows: n, keys: keys)
            case .read: refused.append("\(actor.name) read no row")
            case .failed(let e): refused.append("\(actor.name)'s read was \(Self.refusal(e))")
            case .wrote: break
            }
        }
        // A write through the API is proof too.
        if seedProblem == nil {
            for actor in [HarnessActor.anon, stranger] {
                let insert = try insertAsOthers(t, owner: owner, victim: victim, attacker: actor)
                switch insert.outcome {
                case .wrote(let n) where n > 0:
                    return Self.proven(
                        actor, request: "POST \(Self.path(t))" + Self.profile(t, reading: false), sql: insert.sql,
                        effect: "inserted", rows: n, keys: [])
                case .failed(let e): refused.append("\(actor.name)'s insert was \(Self.refusal(e))")
                default: refused.append("\(actor.name)'s insert wrote no row")
                }
            }
        }
        var reason = refused.joined(separator: "; ")
        if let seedProblem { reason += "; the table had no row to read and \(seedProblem)" }
        return .notProven(reason)
    }
}
