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

/// The undo is checked, not trusted: after each undo the policies (as `pg_get_expr` deparses
/// them), RLS switches and API grants must be those read before the first mutant, and after
/// the last one the whole security surface (the lock file's content) too.
struct SurfaceDigest {
    let conn: PostgresConnection
    let exposed: [String]
    let catalog: MutationCatalog
    let original: SecuritySurface

    init(_ conn: PostgresConnection, exposed: [String], catalog: MutationCatalog) throws {
        self.conn = conn
        self.exposed = exposed
        self.catalog = catalog
        original = try SurfaceReader.read(conn, exposedSchemas: exposed)
    }

    /// Throws when what mutants change differs from the original after `mutant` was undone.
    func verify(after mutant: Mutant) throws {
        if try MutationCatalog.read(conn, exposed: exposed) != catalog { try verifySurface(after: mutant, force: true) }
    }

    /// The same for the one kind of object the mutant changed (its policy, the tables, the
    /// functions): a mutant's statements name only that object. The whole catalog and surface
    /// are compared after the last mutant.
    func verifyChanged(after mutant: Mutant) throws {
        let same: Bool
        if let p = mutant.original {
            same = try MutationCatalog.policy(conn, like: p) == p
        } else if mutant.function != nil {
            same = try DefinerFunction.read(conn, exposed: exposed) == catalog.functions
        } else {
            same = try MutationCatalog.tables(conn, exposed: exposed) == catalog.tables
        }
        if !same { try verifySurface(after: mutant, force: true) }
    }

    /// Throws when the security surface differs from the original.
    func verifySurface(after mutant: Mutant, force: Bool = false) throws {
        let now = try SurfaceReader.read(conn, exposedSchemas: exposed)
        guard now != original || force else { return }
        let changed = SurfaceDiff.diff(original, now).map { "\($0.subject): \($0.description)" }.prefix(3).joined(
            separator: "; ")
        throw MutationUndoError(mutant: mutant, difference: changed)
    }
}

/// An undo that did not restore the catalog: nothing after it could be trusted.
public struct MutationUndoError: Error, CustomStringConvertible {
    public var mutant: Mutant
    public var difference: String
    public var description: String {
        "undoing the mutant '\(mutant.mutation)' of \(mutant.policy.map { "policy \(SQL.display($0)) on " } ?? "")"
            + "\(mutant.table) did not restore the catalog (\(difference.isEmpty ? "its policies, RLS or grants differ" : difference)): "
            + "the run stopped; please report this with the policy's definition"
    }
}
