import Postgres

/// Where a mutant lives while the tests run against it. `InPlaceMutations` changes the
/// throwaway database itself and puts it back; a clone of a template database could stand in
/// for it (apply in the clone, drop the clone).
protocol MutationSandbox {
    /// The mutant is in force, committed, for every connection the tests open.
    func apply(_ mutant: Mutant) throws
    /// The original is back, exactly: `verify` fails when the catalog says otherwise.
    func undo(_ mutant: Mutant) throws
}

/// A mutant applied by DDL on the admin connection and undone by its exact inverse (each in
/// its own transaction, so a failed step leaves nothing half-done).
struct InPlaceMutations: MutationSandbox {
    let conn: PostgresConnection

    func apply(_ mutant: Mutant) throws { try run(mutant.apply) }
    func undo(_ mutant: Mutant) throws { try run(mutant.undo) }

    private func run(_ statements: [String]) throws {
        try conn.query("begin")
        do {
            for s in statements { try conn.query(s) }
            try conn.query("commit")
        } catch {
            _ = try? conn.query("rollback")
            throw error
        }
    }
}

/// The undo is checked, not trusted: the security surface before the first mutant and after
/// each undo must be the same.
struct SurfaceDigest {
    let conn: PostgresConnection
    let exposed: [String]
    let original: SecuritySurface

    init(_ conn: PostgresConnection, exposed: [String]) throws {
        self.conn = conn
        self.exposed = exposed
        original = try SurfaceReader.read(conn, exposedSchemas: exposed)
    }

    /// Throws when the catalog differs from the original after `mutant` was undone.
    func verify(after mutant: Mutant) throws {
        let now = try SurfaceReader.read(conn, exposedSchemas: exposed)
        guard now != original else { return }
        let changed = SurfaceDiff.diff(original, now).map { "\($0.subject): \($0.description)" }.prefix(3).joined(separator: "; ")
        throw MutationUndoError(mutant: mutant, difference: changed)
    }
}

/// An undo that did not restore the catalog: nothing after it could be trusted.
public struct MutationUndoError: Error, CustomStringConvertible {
    public var mutant: Mutant
    public var difference: String
    public var description: String {
        "undoing the mutant '\(mutant.mutation)' of \(mutant.policy.map { "policy \(SQL.display($0)) on " } ?? "")"
            + "\(mutant.table) did not restore the catalog (\(difference.isEmpty ? "security surface differs" : difference)): "
            + "the run stopped; please report this with the policy's definition"
    }
}
