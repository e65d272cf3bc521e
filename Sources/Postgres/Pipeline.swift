import CLibPQ
import Foundation

/// One statement with its parameters, to send through a pipeline.
public struct PostgresStatement: Sendable {
    public var sql: String
    public var parameters: [any PostgresEncodable]
    public init(_ sql: String, _ parameters: [any PostgresEncodable] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}

/// What happened to one statement of a pipeline.
public enum StatementOutcome: Sendable {
    case success(QueryResult)
    case failure(PostgresError)
    /// Not run, because an earlier statement of its group failed.
    case skipped

    public var result: QueryResult? { if case .success(let r) = self { r } else { nil } }
    public var error: PostgresError? { if case .failure(let e) = self { e } else { nil } }
}

/// How the groups of a pipeline are kept apart.
public enum PipelineIsolation: Sendable {
    /// All groups form one unit: the first error skips everything after it. Outside a
    /// transaction the whole pipeline is one implicit transaction.
    case none
    /// A failing group is undone alone (savepoint); the others stay.
    case keepSuccesses
    /// Every group starts from the same state and is undone afterwards; nothing persists.
    case rollbackEach
}

extension PostgresConnection {
    /// Sends every statement without waiting for replies (libpq pipeline mode) and returns
    /// the outcomes in order. Each statement is its own group.
    public func pipeline(_ statements: [PostgresStatement], isolation: PipelineIsolation = .none) throws
        -> [StatementOutcome]
    {
        try run(
            PipelinePlan(statements: statements, groups: statements.indices.map { $0..<($0 + 1) }), isolation: isolation
        )
    }

    /// Sends groups of statements in pipeline mode. Within a group, a failure skips the rest
    /// of the group; between groups, `isolation` decides what a failure undoes.
    public func pipeline(groups: [[PostgresStatement]], isolation: PipelineIsolation) throws -> [[StatementOutcome]] {
        var flat: [PostgresStatement] = []
        var ranges: [Range<Int>] = []
        flat.reserveCapacity(groups.reduce(0) { $0 + $1.count })
        for g in groups {
            ranges.append(flat.count..<(flat.count + g.count))
            flat.append(contentsOf: g)
        }
        let outcomes = try run(PipelinePlan(statements: flat, groups: ranges), isolation: isolation)
        return ranges.map { Array(outcomes[$0]) }
    }

    private func run(_ plan: PipelinePlan, isolation: PipelineIsolation) throws -> [StatementOutcome] {
        var plan = plan
        let groups = plan.groups
        let wasInTransaction = inTransaction
        switch isolation {
        case .none:
            for g in groups.indices { plan.addGroup(g) }
            plan.sync()
        case .keepSuccesses where !wasInTransaction:
            // Outside a transaction every synced group commits or fails on its own.
            for g in groups.indices {
                plan.addGroup(g)
                plan.sync()
            }
        case .keepSuccesses:
            // "ROLLBACK TO a" at the start of each group undoes only a failed predecessor:
            // after a success, "a" was set again right behind it.
            plan.control("SAVEPOINT rlskit_pipe")
            for g in groups.indices {
                if g > 0 { plan.control("ROLLBACK TO SAVEPOINT rlskit_pipe") }
                plan.addGroup(g)
                plan.control("RELEASE SAVEPOINT rlskit_pipe")
                plan.control("SAVEPOINT rlskit_pipe")
                plan.sync()
            }
            plan.control("ROLLBACK TO SAVEPOINT rlskit_pipe")
            plan.control("RELEASE SAVEPOINT rlskit_pipe")
            plan.sync()
        case .rollbackEach:
            plan.repeatable = true
            if !wasInTransaction { plan.control("BEGIN") }
            plan.control("SAVEPOINT rlskit_pipe")
            for g in groups.indices {
                if g > 0 { plan.control("ROLLBACK TO SAVEPOINT rlskit_pipe") }
                plan.addGroup(g)
                plan.sync()
            }
            plan.control("ROLLBACK TO SAVEPOINT rlskit_pipe")
            if wasInTransaction { plan.control("RELEASE SAVEPOINT rlskit_pipe") } else { plan.control("ROLLBACK") }
            plan.sync()
        }
        return try execute(plan)
    }

    private func execute(_ plan: PipelinePlan, aheadAllowed: Bool = true) throws -> [StatementOutcome] {
        for st in plan.statements {
            try Self.checkNoNUL(st.sql, st.parameters)
            guard st.parameters.count <= 65535 else {
                throw PostgresError(
                    kind: .client,
                    message: "a statement has \(st.parameters.count) parameters; the protocol allows 65535")
            }
        }
        guard PQenterPipelineMode(handle) == 1 else { throw connectionError() }
        PQsetnonblocking(handle, 1)
        defer {
            PQsetnonblocking(handle, 0)
            if PQexitPipelineMode(handle) != 1 { leavePipelineAfterFailure() }
        }
        // A pipeline that leaves nothing behind sends its prepares ahead of it in the same
        // round; should one fail, it runs again with that statement unprepared.
        let statusBefore = PQtransactionStatus(handle)
        let (prepared, ahead) = try prepareRepeated(plan, ahead: aheadAllowed && plan.repeatable)
        var sent = plan
        if !ahead.isEmpty { sent.items = prepareItems(ahead) + plan.items }
        var reader = PipelineReader(plan: sent, secret: secret)
        var sinceExchange = 0
        for item in sent.items {
            let ok: Int32
            switch item {
            case .sync: ok = PQpipelineSync(handle)
            case .control(let sql): ok = PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0)
            case .prepare(let k):
                let types = ahead[k].key.types.map { Oid($0) }
                ok = types.withUnsafeBufferPointer { t in
                    PQsendPrepare(handle, ahead[k].name, ahead[k].key.sql, Int32(types.count), t.baseAddress)
                }
            case .user(let index):
                let st = plan.statements[index]
                let name = prepared[index]
                ok = withParameters(st.parameters) { types, values, count in
                    if let name { return PQsendQueryPrepared(handle, name, count, values, nil, nil, 0) }
                    return PQsendQueryParams(handle, st.sql, count, types, values, nil, nil, 0)
                }
            }
            guard ok == 1 else { throw connectionError() }
            // A syscall per statement would cost more than the server's work; every few dozen
            // is enough to keep both socket buffers moving.
            sinceExchange += 1
            if sinceExchange == 64 {
                sinceExchange = 0
                try exchange(&reader, wait: false)
            }
        }
        while !reader.done { try exchange(&reader, wait: true) }
        pipelineRounds += 1
        if let failure = reader.controlFailure { throw failure }
        if !ahead.isEmpty {
            for (k, w) in ahead.enumerated() where !reader.failedPrepares.contains(k) { preparedNames[w.key] = w.name }
            // Again only from where it started (a step that ended the transaction is not repeated).
            if !reader.failedPrepares.isEmpty && PQtransactionStatus(handle) == statusBefore {
                return try execute(plan, aheadAllowed: false)
            }
        }
        for (i, o) in reader.outcomes.enumerated() where prepared[i] != nil {
            if case .failure(let e) = o { forgetPrepared(after: e, sql: plan.statements[i].sql) }
        }
        return reader.outcomes
    }

    /// After a failure part-way (the connection still up), reads whatever the server still
    /// owes so the connection leaves pipeline mode and stays usable.
    private func leavePipelineAfterFailure() {
        guard PQstatus(handle) == CONNECTION_OK, PQpipelineSync(handle) == 1 else { return }
        for _ in 0..<10_000_000 {
            if PQexitPipelineMode(handle) == 1 || PQstatus(handle) != CONNECTION_OK { return }
            if let r = PQgetResult(handle) { PQclear(r) }
        }
    }

    /// Statements whose text repeats are parsed and planned once: prepared in one round trip
    /// before the pipeline (and kept for later pipelines on this connection). Text that fails
    /// to prepare is sent unprepared, so its error is reported where it is used.
    private func prepareRepeated(_ plan: PipelinePlan, ahead: Bool) throws -> ([String?], [WantedPrepare]) {
        let none = [String?](repeating: nil, count: plan.statements.count)
        // In a failed transaction nothing can be prepared; everything goes unprepared.
        if PQtransactionStatus(handle) == PQTRANS_INERROR { return (none, []) }
        var uses: [PreparedKey: Int] = [:]
        var keys: [PreparedKey] = []
        keys.reserveCapacity(plan.statements.count)
        for st in plan.statements {
            let key = PreparedKey(sql: st.sql, types: st.parameters.map { type(of: $0).postgresType.rawValue })
            keys.append(key)
            uses[key, default: 0] += 1
        }
        var names: [PreparedKey: String] = [:]
        var wanted: [WantedPrepare] = []
        for (key, n) in uses where n > 1 || preparedNames[key] != nil {
            if let name = preparedNames[key] {
                names[key] = name
                continue
            }
            guard preparedNames.count + wanted.count < 2000 else { continue }
            preparedCounter += 1
            wanted.append((key, "rlskit_p\(preparedCounter)"))
        }
        if ahead && !wanted.isEmpty {
            for w in wanted { names[w.key] = w.name }
            return (keys.map { names[$0] }, wanted)
        }
        if !wanted.isEmpty {
            // Each prepare is its own synced segment. Inside the caller's transaction a failed
            // prepare would abort it, so each segment starts by rolling back to a savepoint.
            let guarded = PQtransactionStatus(handle) == PQTRANS_INTRANS
            func control(_ sql: String) throws {
                guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1 else { throw connectionError() }
            }
            if guarded { try control("SAVEPOINT rlskit_prepare") }
            for w in wanted {
                if guarded { try control("ROLLBACK TO SAVEPOINT rlskit_prepare") }
                let types = w.key.types.map { Oid($0) }
                let ok = types.withUnsafeBufferPointer { t in
                    PQsendPrepare(handle, w.name, w.key.sql, Int32(types.count), t.baseAddress)
                }
                guard ok == 1, PQpipelineSync(handle) == 1 else { throw connectionError() }
            }
            if guarded {
                try control("ROLLBACK TO SAVEPOINT rlskit_prepare")
                try control("RELEASE SAVEPOINT rlskit_prepare")
            }
            guard PQpipelineSync(handle) == 1 else { throw connectionError() }
            // Segment k holds prepare k; a prepare's result is the one without a command tag.
            var segment = 0
            while segment <= wanted.count {
                try flushAndWait()
                while PQisBusy(handle) == 0, let r = PQgetResult(handle) {
                    let status = PQresultStatus(r)
                    let untagged = String(cString: PQcmdStatus(r)).isEmpty
                    PQclear(r)
                    if status == PGRES_PIPELINE_SYNC {
                        segment += 1
                        break
                    }
                    if status == PGRES_COMMAND_OK, untagged, segment < wanted.count {
                        preparedNames[wanted[segment].key] = wanted[segment].name
                        names[wanted[segment].key] = wanted[segment].name
                    }
                }
                if PQstatus(handle) != CONNECTION_OK { throw connectionError() }
            }
            pipelineRounds += 1
        }
        if names.isEmpty { return (none, []) }
        return (keys.map { names[$0] }, [])
    }

    /// The prepares sent ahead of a pipeline, each in its own synced segment so that one
    /// failing skips no other; inside a transaction a savepoint keeps a failure from aborting it.
    private func prepareItems(_ wanted: [WantedPrepare]) -> [PipelineItem] {
        let guarded = PQtransactionStatus(handle) == PQTRANS_INTRANS
        var items: [PipelineItem] = guarded ? [.control("SAVEPOINT rlskit_prepare")] : []
        for k in wanted.indices {
            if guarded { items.append(.control("ROLLBACK TO SAVEPOINT rlskit_prepare")) }
            items += [.prepare(k), .sync]
        }
        if guarded {
            items += [.control("ROLLBACK TO SAVEPOINT rlskit_prepare"), .control("RELEASE SAVEPOINT rlskit_prepare")]
        }
        return items
    }

    /// A prepared statement the server no longer has (DISCARD, DEALLOCATE) or whose result
    /// shape changed: forget it, so the next pipeline prepares it again.
    func forgetPrepared(after error: PostgresError, sql: String) {
        guard error.sqlState == "26000" || error.sqlState == "0A000" else { return }
        preparedNames = preparedNames.filter { $0.key.sql != sql }
    }

    private func flushAndWait() throws {
        let f = PQflush(handle)
        if f < 0 { throw connectionError() }
        if PQisBusy(handle) == 0 { return }
        var pfd = pollfd(fd: PQsocket(handle), events: Int16(POLLIN) | (f == 1 ? Int16(POLLOUT) : 0), revents: 0)
        if poll(&pfd, 1, 1000) > 0, pfd.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            guard PQconsumeInput(handle) == 1 else { throw connectionError() }
        }
        if PQstatus(handle) != CONNECTION_OK { throw connectionError() }
    }

    /// Pushes queued bytes to the server and takes every result that has arrived, so that
    /// neither side can block on a full socket buffer. With `wait`, sleeps in poll() until
    /// the socket can move data.
    private func exchange(_ reader: inout PipelineReader, wait: Bool) throws {
        let f = PQflush(handle)
        if f < 0 { throw connectionError() }
        try drain(&reader)
        if reader.done { return }
        var pfd = pollfd(fd: PQsocket(handle), events: Int16(POLLIN) | (f == 1 ? Int16(POLLOUT) : 0), revents: 0)
        if poll(&pfd, 1, wait ? 1000 : 0) > 0, pfd.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            guard PQconsumeInput(handle) == 1 else { throw connectionError() }
            try drain(&reader)
        }
    }

    /// Takes every result libpq holds complete. A NULL ends a statement's results; a NULL with
    /// no result before it only means libpq has nothing more yet.
    private func drain(_ reader: inout PipelineReader) throws {
        while PQisBusy(handle) == 0, !reader.done {
            if let r = PQgetResult(handle) {
                try reader.take(r)
            } else if reader.current != nil {
                reader.endOfStatement()
            } else {
                break
            }
        }
        if PQstatus(handle) != CONNECTION_OK { throw connectionError() }
    }
}

enum PipelineItem {
    /// A user statement, by its index in the flat list.
    case user(Int)
    case control(String)
    case sync
    /// A statement prepared ahead of the pipeline, by its index among those.
    case prepare(Int)
}

typealias WantedPrepare = (key: PreparedKey, name: String)

struct PipelinePlan {
    let statements: [PostgresStatement]
    let groups: [Range<Int>]
    var items: [PipelineItem] = []
    /// Running it again leaves the same state (every group is undone).
    var repeatable = false
    init(statements: [PostgresStatement], groups: [Range<Int>]) {
        self.statements = statements
        self.groups = groups
        items.reserveCapacity(statements.count + groups.count * 3)
    }
    mutating func addGroup(_ g: Int) {
        for i in groups[g] { items.append(.user(i)) }
    }
    mutating func control(_ sql: String) { items.append(.control(sql)) }
    mutating func sync() { items.append(.sync) }
}

/// Matches results to the items sent, in order.
struct PipelineReader {
    let items: [PipelineItem]
    let secret: [String]
    var next = 0
    var outcomes: [StatementOutcome]
    var controlFailure: PostgresError?
    var failedPrepares: Set<Int> = []
    var current: StatementOutcome?

    init(plan: PipelinePlan, secret: [String]) {
        items = plan.items
        self.secret = secret
        outcomes = Array(repeating: .skipped, count: plan.statements.count)
    }

    var done: Bool { next >= items.count }

    /// One PGresult for the item at the head of the queue.
    mutating func take(_ r: OpaquePointer) throws {
        defer { PQclear(r) }
        guard next < items.count else { return }
        let status = PQresultStatus(r)
        if status == PGRES_PIPELINE_SYNC {
            guard case .sync = items[next] else {
                throw PostgresError(kind: .client, message: "pipeline out of step: unexpected sync")
            }
            next += 1
            return
        }
        // A statement may yield several results (only the first counts).
        guard current == nil else { return }
        if status == PGRES_PIPELINE_ABORTED {
            current = .skipped
        } else {
            do { current = .success(try PostgresConnection.read(r, secret: secret)) } catch let e as PostgresError {
                current = .failure(e)
            }
        }
    }

    /// libpq's NULL after a statement's results.
    mutating func endOfStatement() {
        guard next < items.count else { return }
        let outcome = current ?? .skipped
        current = nil
        switch items[next] {
        case .user(let i): outcomes[i] = outcome
        case .control(let sql):
            if case .failure(let e) = outcome, controlFailure == nil {
                var e = e
                e.message = "pipeline control statement \"\(sql)\" failed: " + e.message
                controlFailure = e
            }
        case .prepare(let k):
            if case .failure = outcome { failedPrepares.insert(k) }
        case .sync: return
        }
        next += 1
    }
}
