import Foundation
import Postgres

/// Reads the policies on helper connections in the main transaction's exported snapshot.
///
/// Why: deparsing a policy makes the server open its table, which is most of an audit's
/// server time, and every opened table stays locked until the transaction ends. Two helpers
/// use both cores while the main connection runs the other queries, and each reads its share
/// in chunks of at most `tablesPerChunk` tables, one short transaction each, so that 20,000
/// tables never exhaust the server's lock table (max_locks_per_transaction).
final class SidePolicies: Sendable {
    static let helpers = 2
    static let tablesPerChunk = 1000
    /// Columns for the first query of a run.
    static let countColumns =
        "(select count(*) from pg_catalog.pg_policy) as policy_count, (select count(distinct polrelid) from pg_catalog.pg_policy) as policy_tables"

    private let pending: WorkerPool.Pending<[PolicyRow]>

    /// Exports the snapshot of `conn`'s open transaction and starts the helpers.
    static func launch(_ conn: PostgresConnection, helper: ConnectionString, exposed: String, tables: Int) throws
        -> [SidePolicies]
    {
        // Chunks are ranges of table oids, so each reads pg_policy through its polrelid index.
        let per = max(1, min(tablesPerChunk, (tables + helpers - 1) / helpers))
        let row = try conn.query(
            """
            select pg_catalog.pg_export_snapshot() as snapshot,
                   array(select x.polrelid::text from (select d.polrelid, row_number() over (order by d.polrelid) as n
                                                       from (select distinct polrelid from pg_catalog.pg_policy) d) x
                         where (x.n - 1) % \(per) = 0 order by x.polrelid) as starts
            """
        ).rows[0]
        let snapshot: String = try row.decode("snapshot")
        let starts: [String] = try row.decode("starts")
        let ranges = starts.indices.map { i in (starts[i], i + 1 < starts.count ? starts[i + 1] : nil) }
        return (0..<helpers).map { h in
            SidePolicies(
                helper, snapshot: snapshot, exposed: exposed,
                ranges: stride(from: h, to: ranges.count, by: helpers).map { ranges[$0] })
        }
    }

    /// Every helper's rows, or `fallback()` when one failed (e.g. no free connection slot).
    static func collect(_ sides: [SidePolicies], fallback: () throws -> [PolicyRow]) throws -> [PolicyRow] {
        var all: [PolicyRow] = []
        for side in sides {
            guard let rows = try? side.pending.wait().first, let rows else { return try fallback() }
            all += rows
        }
        return all
    }

    private init(_ connection: ConnectionString, snapshot: String, exposed: String, ranges: [(String, String?)]) {
        pending = WorkerPool.start(1, workers: 1, open: { try PostgresConnection(connection) }) { c, _ in
            // Parallel workers start with cold caches for every chunk: slower here.
            try c.query("SET max_parallel_workers_per_gather = 0")
            var rows: [PolicyRow] = []
            let sql =
                CatalogDataset.policies.sql
                + "\n  and p.polrelid >= $2::oid and ($3::oid is null or p.polrelid < $3::oid)"
            for (from, to) in ranges {
                try c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                defer { _ = try? c.query("ROLLBACK") }
                try c.query("SET TRANSACTION SNAPSHOT \(try c.escapeLiteral(snapshot))")
                rows += try AuditCatalog.policies(try c.query(sql, [exposed, from, to]).rows)
            }
            return (rows, false)
        }
    }
}
