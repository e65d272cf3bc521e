import Foundation
import Postgres

/// Reads the policies on helper connections in the main transaction's exported snapshot.
///
/// Why: deparsing a policy makes the server open its table, which is most of an audit's
/// server time, and every opened table stays locked until the transaction ends. Two helpers
/// use both cores while the main connection runs the other queries, and each reads its share
/// in chunks of at most `tablesPerChunk` tables, one short transaction each, so that 20,000
/// tables never exhaust the server's lock table (max_locks_per_transaction).
final class SidePolicies: @unchecked Sendable {
    static let helpers = 2
    static let tablesPerChunk = 1000
    /// Columns for the first query of a run.
    static let countColumns = "(select count(*) from pg_catalog.pg_policy) as policy_count, (select count(distinct polrelid) from pg_catalog.pg_policy) as policy_tables"

    private let group = DispatchGroup()
    private var result: Result<[PolicyRow], Error> = .success([])

    /// Exports the snapshot of `conn`'s open transaction and starts the helpers.
    static func launch(_ conn: PostgresConnection, helper: ConnectionString, exposed: String, tables: Int) throws -> [SidePolicies] {
        let snapshot: String = try conn.query("select pg_catalog.pg_export_snapshot() as s").rows[0].decode("s")
        let chunks = max(helpers, (tables + tablesPerChunk - 1) / tablesPerChunk)
        return (0..<helpers).map { SidePolicies(helper, snapshot: snapshot, exposed: exposed,
                                                chunks: Array(stride(from: $0, to: chunks, by: helpers)), of: chunks) }
    }

    /// Every helper's rows, or `fallback()` when one failed (e.g. no free connection slot).
    static func collect(_ sides: [SidePolicies], fallback: () throws -> [PolicyRow]) throws -> [PolicyRow] {
        var all: [PolicyRow] = []
        for side in sides {
            side.group.wait()  // orders the helper's write before this read
            guard case .success(let rows) = side.result else { return try fallback() }
            all += rows
        }
        return all
    }

    private init(_ connection: ConnectionString, snapshot: String, exposed: String, chunks: [Int], of total: Int) {
        DispatchQueue.global().async(group: group) { [self] in
            result = Result {
                let c = try PostgresConnection(connection)
                var rows: [PolicyRow] = []
                for chunk in chunks {
                    try c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    defer { _ = try? c.query("ROLLBACK") }
                    try c.query("SET TRANSACTION SNAPSHOT \(try c.escapeLiteral(snapshot))")
                    let sql = CatalogDataset.policies.sql + "\n  and p.polrelid::int8 % \(total) = \(chunk)"
                    rows += try AuditCatalog.policies(try c.query(sql, [exposed]).rows)
                }
                return rows
            }
        }
    }
}
