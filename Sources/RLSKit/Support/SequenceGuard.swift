import Foundation
import Postgres

/// Sequences are not transactional: a rolled-back test still advances them. This records
/// every sequence before a run and puts back those the run moved, so a test run leaves the
/// database exactly as it found it. Safety on a shared database: only sequences that feed a
/// column (identity or serial) are touched, never below the largest value in that column (a
/// client that inserted during the run keeps its ids), and only when no other session is
/// connected at the end (so no transaction holds an id it has not committed yet).
public struct SequenceGuard: Sendable {
    struct State: Sendable, Equatable {
        var lastValue: Int64?
        var isCalled: Bool
    }
    let before: [String: State]

    /// Reads the state of every sequence the connecting role can see.
    public static func capture(_ conn: PostgresConnection) throws -> SequenceGuard {
        SequenceGuard(before: try states(conn))
    }

    static func states(_ conn: PostgresConnection) throws -> [String: State] {
        // pg_sequences shows last_value only to roles that may read the sequence; the
        // superuser or owner running tests can. is_called is read from the relation itself.
        let names: [String] = try conn.query("""
            select format('%I.%I', schemaname, sequencename) from pg_sequences
            where has_sequence_privilege(format('%I.%I', schemaname, sequencename), 'select')
            """).rows.map { try $0.decode(0) }
        // The names come quoted by the server (format %I); one round trip for all of them.
        let outcomes = try conn.pipeline(names.map { Statement("select last_value, is_called from \($0)") }, isolation: .keepSuccesses)
        var out: [String: State] = [:]
        for (name, o) in zip(names, outcomes) {
            guard let row = o.result?.rows.first else { continue }
            out[name] = State(lastValue: try row.decode("last_value"), isCalled: try row.decode("is_called"))
        }
        return out
    }

    /// Puts moved sequences back. Returns a note when it could not (other sessions connected).
    @discardableResult
    public func restore(_ conn: PostgresConnection) throws -> String? {
        let after = try Self.states(conn)
        let moved = before.filter { after[$0.key] != nil && after[$0.key] != $0.value }
        if moved.isEmpty { return nil }
        // The run's own connections close just before this; their backends take a moment to go.
        var others = 0
        for attempt in 0..<30 {
            others = try conn.query("""
                select count(*)::int from pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
                """).rows[0].decode(0)
            if others == 0 || attempt == 29 { break }
            usleep(10_000)
        }
        guard others == 0 else {
            return "note: the run advanced \(moved.count) sequence(s); not reset because \(others) other session(s) are connected"
        }
        for (name, state) in moved {
            guard let last = state.lastValue else { continue }
            // The column the sequence feeds (pg_depend 'a' for serial, 'i' for identity).
            guard let owner = try conn.query("""
                select format('%I.%I', n.nspname, c.relname) as tbl, quote_ident(a.attname) as col
                from pg_depend d join pg_class c on c.oid = d.refobjid join pg_namespace n on n.oid = c.relnamespace
                join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
                where d.classid = 'pg_class'::regclass and d.objid = $1::regclass and d.deptype in ('a', 'i')
                """, [name]).rows.first else { continue }
            let table: String = try owner.decode("tbl"), column: String = try owner.decode("col")
            // Both names come quoted by the server.
            let highest: Int64? = try conn.query("select max(\(column))::bigint from \(table)").rows[0].decode(0)
            if let highest, highest > last {
                try conn.query("select setval($1::regclass, $2, true)", [name, highest])
            } else {
                try conn.query("select setval($1::regclass, $2, $3)", [name, last, state.isCalled])
            }
        }
        return nil
    }
}
