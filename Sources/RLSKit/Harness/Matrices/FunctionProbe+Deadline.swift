import Dispatch
import Foundation
import Postgres
import Synchronization

/// A cut-off a function cannot catch. statement_timeout and a cancel both raise query_canceled,
/// which PL/pgSQL may catch (`exception when query_canceled` in a loop) and run on for ever,
/// even after rlskit is gone. So past the deadline a cancel is sent, and past a short grace the
/// backend is terminated (pg_terminate_backend, not catchable) from a second connection of the
/// same login, which may always end its own sessions.
enum CallDeadline {
    enum Stage: Sendable { case inTime, cancelled, terminated }

    /// Runs `body`, one statement on `conn`, and says how it ended. When `terminated`, the
    /// session is gone: the caller reconnects.
    static func run<R>(
        _ conn: PostgresConnection, seconds: Double, grace: Double, _ body: () throws -> R
    ) -> (result: Result<R, any Error>, stage: Stage) {
        guard let canceller = conn.canceller() else { return (Result { try body() }, .inTime) }
        let pid = conn.backendPID
        let target = conn.connectionString
        let ended = DispatchSemaphore(value: 0)
        let watched = DispatchSemaphore(value: 0)
        let stage = Mutex(Stage.inTime)
        Thread.detachNewThread {
            defer { watched.signal() }
            if ended.wait(timeout: .now() + seconds) == .success { return }
            stage.withLock { $0 = .cancelled }
            canceller.cancelStatement()
            if ended.wait(timeout: .now() + grace) == .success { return }
            stage.withLock { $0 = .terminated }
            // Not allowed to end it: stop waiting, and let the server notice the closed socket.
            if !terminate(pid, target) { canceller.abandon() }
        }
        let result = Result { try body() }
        ended.signal()
        // Nothing else is sent on `conn` until the watcher is done, so its cancel can only
        // reach this statement (a cancel arriving while the session is idle is ignored).
        watched.wait()
        return (result, stage.withLock { $0 })
    }

    /// Ends the session `pid` from a new connection; false when that was not possible. Then
    /// the call ends once the server sees its connection closed (client_connection_check_interval,
    /// which the probe sets).
    static func terminate(_ pid: Int32, _ target: ConnectionString) -> Bool {
        guard let other = try? PostgresConnection(target) else { return false }
        defer { other.close() }
        let ended =
            try? other.query("select pg_catalog.pg_terminate_backend($1::int)", [Int(pid)]).rows.first?
            .decode(0) as Bool?
        return ended == true
    }
}
