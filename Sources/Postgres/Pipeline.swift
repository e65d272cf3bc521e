import CLibPQ
import Foundation

/// One statement with its parameters, to send through a pipeline.
public struct Statement: Sendable {
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
    public func pipeline(_ statements: [Statement], isolation: PipelineIsolation = .none) throws -> [StatementOutcome] {
        try pipeline(groups: statements.map { [$0] }, isolation: isolation).map { $0[0] }
    }

    /// Sends groups of statements in pipeline mode. Within a group, a failure skips the rest
    /// of the group; between groups, `isolation` decides what a failure undoes.
    public func pipeline(groups: [[Statement]], isolation: PipelineIsolation) throws -> [[StatementOutcome]] {
        var plan = PipelinePlan(groups: groups)
        let wasInTransaction = inTransaction
        switch isolation {
        case .none:
            for g in groups.indices { plan.addGroup(g) }
            plan.sync()
        case .keepSuccesses where !wasInTransaction:
            // Outside a transaction every synced group commits or fails on its own.
            for g in groups.indices { plan.addGroup(g); plan.sync() }
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

    private func execute(_ plan: PipelinePlan) throws -> [[StatementOutcome]] {
        guard PQenterPipelineMode(handle) == 1 else { throw connectionError() }
        PQsetnonblocking(handle, 1)
        var reader = PipelineReader(plan: plan, secret: secret)
        defer {
            PQsetnonblocking(handle, 0)
            PQexitPipelineMode(handle)
        }
        for item in plan.items {
            let ok: Int32
            switch item {
            case .sync: ok = PQpipelineSync(handle)
            case .statement(let slot):
                let st = plan.statement(slot)
                ok = withParameters(st.parameters) { types, values, count in
                    PQsendQueryParams(handle, st.sql, count, types, values, nil, nil, 0)
                }
            }
            guard ok == 1 else { throw connectionError() }
            try exchange(&reader, wait: false)
        }
        while !reader.done { try exchange(&reader, wait: true) }
        if let failure = reader.controlFailure { throw failure }
        return reader.outcomes
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
    case statement(PipelineSlot)
    case sync
}

enum PipelineSlot {
    case user(group: Int, index: Int)
    case control(String)
}

struct PipelinePlan {
    let groups: [[Statement]]
    var items: [PipelineItem] = []
    init(groups: [[Statement]]) {
        self.groups = groups
        items.reserveCapacity(groups.count * 3)
    }
    mutating func addGroup(_ g: Int) {
        for i in groups[g].indices { items.append(.statement(.user(group: g, index: i))) }
    }
    mutating func control(_ sql: String) { items.append(.statement(.control(sql))) }
    mutating func sync() { items.append(.sync) }
    func statement(_ slot: PipelineSlot) -> Statement {
        switch slot {
        case .user(let g, let i): return groups[g][i]
        case .control(let sql): return Statement(sql)
        }
    }
}

/// Matches results to the items sent, in order.
struct PipelineReader {
    let items: [PipelineItem]
    let secret: String?
    var next = 0
    var outcomes: [[StatementOutcome]]
    var controlFailure: PostgresError?
    var current: StatementOutcome?

    init(plan: PipelinePlan, secret: String?) {
        items = plan.items
        self.secret = secret
        outcomes = plan.groups.map { Array(repeating: StatementOutcome.skipped, count: $0.count) }
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
        let outcome: StatementOutcome
        if status == PGRES_PIPELINE_ABORTED {
            outcome = .skipped
        } else {
            do { outcome = .success(try PostgresConnection.read(r, secret: secret)) } catch let e as PostgresError {
                outcome = .failure(e)
            }
        }
        // A statement may yield several results (only the first counts); keep the first.
        if current == nil { current = outcome }
    }

    /// libpq's NULL after a statement's results.
    mutating func endOfStatement() {
        guard next < items.count, case .statement(let slot) = items[next] else { return }
        let outcome = current ?? .skipped
        current = nil
        next += 1
        switch slot {
        case .user(let g, let i): outcomes[g][i] = outcome
        case .control(let sql):
            if case .failure(let e) = outcome, controlFailure == nil {
                var e = e
                e.message = "pipeline control statement \"\(sql)\" failed: " + e.message
                controlFailure = e
            }
        }
    }
}
