import Foundation
import Postgres

/// How far one sequence moved during a test run, and whether rlskit put it back.
public struct SequenceAdvance: Sendable, Equatable {
    /// `schema.name` as reports name it (`SQL.display`).
    public var sequence: String
    /// Values handed out during the run (nextval calls, counted in steps of the increment).
    public var advancedBy: Int64
    public var reset: Bool

    public init(sequence: String, advancedBy: Int64, reset: Bool) {
        self.sequence = sequence
        self.advancedBy = advancedBy
        self.reset = reset
    }
}

/// Sequences are not transactional: a rolled-back test still advances them. Putting one back
/// with setval is only safe when no other client can have taken a value since: any client
/// that connects between our check and our setval gets an id that is handed out again (a
/// duplicate key on a shared database, worse than a gap). So sequences are reset only on a
/// database rlskit owns (the throwaway server it started); elsewhere they are left where the
/// run moved them and reported.
@_spi(CLI) public struct SequenceGuard: Sendable {
    struct State: Sendable, Equatable {
        var lastValue: Int64?
        var isCalled: Bool
        var increment: Int64
        var display: String
    }
    let before: [String: State]

    /// Reads the state of every sequence the connecting role can see.
    static func capture(_ conn: PostgresConnection) throws -> SequenceGuard {
        SequenceGuard(before: try states(conn))
    }

    static func states(_ conn: PostgresConnection) throws -> [String: State] {
        // pg_sequences shows last_value only to roles that may read the sequence; the
        // superuser or owner running tests can. is_called is read from the relation itself.
        let rows = try conn.query(
            """
            select schemaname, sequencename, increment_by from pg_sequences
            where has_sequence_privilege(pg_catalog.format('%I.%I', schemaname, sequencename), 'select')
            """
        ).rows
        let names: [(schema: String, name: String)] = try rows.map {
            (try $0.decode("schemaname"), try $0.decode("sequencename"))
        }
        let increments: [Int64] = try rows.map { try $0.decode("increment_by") }
        // One round trip for all of them.
        let outcomes = try conn.pipeline(
            names.map { PostgresStatement("select last_value, is_called from \(SQL.qualified($0.schema, $0.name))") },
            isolation: .keepSuccesses)
        var out: [String: State] = [:]
        for (i, o) in outcomes.enumerated() {
            guard let row = o.result?.rows.first else { continue }
            out[SQL.qualified(names[i].schema, names[i].name)] = State(
                lastValue: try row.decode("last_value"), isCalled: try row.decode("is_called"),
                increment: increments[i],
                display: SQL.display(names[i].schema) + "." + SQL.display(names[i].name))
        }
        return out
    }

    /// Values handed out between two states of one sequence.
    static func advance(_ a: State, _ b: State) -> Int64 {
        guard let from = a.lastValue, let to = b.lastValue, a.increment != 0 else { return 0 }
        // A project sets its sequences where it likes (setval to the type's ends): no step may trap.
        let (diff, o1) = to.subtractingReportingOverflow(from)
        let (steps, o2) = diff.dividedReportingOverflow(by: a.increment)
        let (n, o3) = steps.addingReportingOverflow((b.isCalled ? 1 : 0) - (a.isCalled ? 1 : 0))
        return o1 || o2 || o3 ? 0 : n
    }

    /// Every sequence the run moved. With `owned` (a database only rlskit can reach) each is
    /// put back, never below the largest value in the column it feeds; otherwise none is touched.
    func finish(_ conn: PostgresConnection, owned: Bool) throws -> [SequenceAdvance] {
        let after = try Self.states(conn)
        var out: [SequenceAdvance] = []
        for (name, state) in before.sorted(by: { $0.value.display < $1.value.display }) {
            guard let now = after[name], now != state else { continue }
            if owned { try reset(conn, name, to: state) }
            out.append(SequenceAdvance(sequence: state.display, advancedBy: Self.advance(state, now), reset: owned))
        }
        return out
    }

    func reset(_ conn: PostgresConnection, _ name: String, to state: State) throws {
        guard let last = state.lastValue else { return }
        // The column the sequence feeds, if any (pg_depend 'a' for serial, 'i' for identity).
        // A table's only: a sequence may belong to a view's column, and reading the view would
        // run the project's expressions in this session, a superuser's on the throwaway server.
        // An integer column only: `max(x)::bigint` of a column of the project's type would run
        // the project's cast (`create cast (mood as bigint) with function …`) there too.
        if let owner = try conn.query(
            """
            select n.nspname as schema, c.relname as tbl, a.attname as col
            from pg_depend d join pg_class c on c.oid = d.refobjid join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
            where d.classid = 'pg_class'::regclass and d.objid = $1::regclass and d.deptype in ('a', 'i')
              and c.relkind in ('r', 'p')
              and a.atttypid in ('pg_catalog.int2'::pg_catalog.regtype, 'pg_catalog.int4'::pg_catalog.regtype,
                                 'pg_catalog.int8'::pg_catalog.regtype)
            """, [name]
        ).rows.first {
            let table = SQL.qualified(try owner.decode("schema"), try owner.decode("tbl"))
            let column = SQL.ident(try owner.decode("col"))
            let highest: Int64? = try conn.query("select max(\(column))::bigint from \(table)").rows[0].decode(0)
            if let highest, state.increment > 0, highest > last {
                try conn.query("select setval($1::regclass, $2, true)", [name, highest])
                return
            }
        }
        try conn.query("select setval($1::regclass, $2, $3)", [name, last, state.isCalled])
    }

    /// One line for the report, nil when nothing moved or everything was put back.
    public static func note(_ advances: [SequenceAdvance]) -> String? {
        let kept = advances.filter { !$0.reset }
        guard !kept.isEmpty else { return nil }
        let list = kept.map { "\($0.sequence) +\($0.advancedBy)" }.joined(separator: ", ")
        return
            "note: sequences advanced by the run, left as they are (gaps are harmless; resetting could hand an id out twice): \(list)"
    }
}

extension SequenceAdvance {
    /// Two runs' advances as one list: the same sequence's steps added up.
    @_spi(CLI) public static func merged(_ a: [SequenceAdvance], _ b: [SequenceAdvance]) -> [SequenceAdvance] {
        guard !b.isEmpty else { return a }
        var out = a
        for x in b {
            if let i = out.firstIndex(where: { $0.sequence == x.sequence }) {
                out[i].advancedBy += x.advancedBy
                out[i].reset = out[i].reset && x.reset
            } else {
                out.append(x)
            }
        }
        return out.sorted { $0.sequence < $1.sequence }
    }
}
