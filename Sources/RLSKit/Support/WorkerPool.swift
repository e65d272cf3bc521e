import Foundation
import Synchronization

/// The one way rlskit runs work in parallel: `workers` threads, each with state of its own (a
/// connection is not Sendable, so it is opened on the thread that uses it), each taking the
/// next item in order. The first error stops the others, and so does a body that asks to stop
/// (a bail-out). Results come back in item order; items never started are nil.
@_spi(CLI) public enum WorkerPool {
    /// Work running in the background; `wait()` returns its results or rethrows its first error.
    final class Pending<R: Sendable>: Sendable {
        fileprivate let group = DispatchGroup()
        fileprivate let results: Mutex<[R?]>
        fileprivate let next = Mutex(0)
        fileprivate let stopped = Mutex(false)
        fileprivate let failure = Mutex<(any Error)?>(nil)

        fileprivate init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }

        func wait() throws -> [R?] {
            group.wait()
            if let error = failure.withLock({ $0 }) { throw error }
            return results.withLock { $0 }
        }

        /// The next item to run, or nil when all were taken or the run stopped.
        fileprivate func take(_ count: Int) -> Int? {
            next.withLock { n in
                guard n < count, !stopped.withLock({ $0 }) else { return nil }
                defer { n += 1 }
                return n
            }
        }

        fileprivate func fail(_ error: any Error) {
            failure.withLock { if $0 == nil { $0 = error } }
            stopped.withLock { $0 = true }
        }
    }

    /// Starts `workers` threads over `count` items and returns at once.
    static func start<State, R: Sendable>(
        _ count: Int, workers: Int, open: @escaping @Sendable () throws -> State,
        _ body: @escaping @Sendable (State, Int) throws -> (result: R, stop: Bool)
    ) -> Pending<R> {
        let pending = Pending<R>(count: count)
        spawn(pending, count, workers: workers, open: { try open() }, body)
        return pending
    }

    /// `run`, where a worker whose `open` gives nil takes no items (they stay nil).
    static func run<State, R: Sendable>(
        _ count: Int, workers: Int, openOrSitOut open: @escaping @Sendable () throws -> State?,
        _ body: @escaping @Sendable (State, Int) throws -> (result: R, stop: Bool)
    ) throws -> [R?] {
        let pending = Pending<R>(count: count)
        spawn(pending, count, workers: workers, open: open, body)
        return try pending.wait()
    }

    static func spawn<State, R: Sendable>(
        _ pending: Pending<R>, _ count: Int, workers: Int, open: @escaping @Sendable () throws -> State?,
        _ body: @escaping @Sendable (State, Int) throws -> (result: R, stop: Bool)
    ) {
        for _ in 0..<max(1, min(workers, count)) {
            pending.group.enter()
            Thread.detachNewThread {
                defer { pending.group.leave() }
                do {
                    guard let state = try open() else { return }
                    while let i = pending.take(count) {
                        let (r, stop) = try body(state, i)
                        pending.results.withLock { $0[i] = r }
                        if stop { pending.stopped.withLock { $0 = true } }
                    }
                } catch {
                    pending.fail(error)
                }
            }
        }
    }

    /// `start`, then `wait`.
    public static func run<State, R: Sendable>(
        _ count: Int, workers: Int, open: @escaping @Sendable () throws -> State,
        _ body: @escaping @Sendable (State, Int) throws -> (result: R, stop: Bool)
    ) throws -> [R?] {
        try start(count, workers: workers, open: open, body).wait()
    }

    /// The same contract on the calling thread, with state the caller already holds.
    static func serial<State, R>(
        _ count: Int, on state: State, _ body: (State, Int) throws -> (result: R, stop: Bool)
    ) throws -> [R?] {
        var out = [R?](repeating: nil, count: count)
        for i in 0..<count {
            let (r, stop) = try body(state, i)
            out[i] = r
            if stop { break }
        }
        return out
    }
}
