import Foundation
import Synchronization

extension LocalCluster {
    // MARK: Signals

    /// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT stop every running cluster, delete its directory and exit
    /// with 128 + signal. Call once, early, from an executable.
    public static func stopAll() {
        for cleanup in ClusterRegistry.shared.removeAll() { cleanup() }
    }

    /// Stops every cluster and exits. Waits for a signal handler that is already cleaning up,
    /// so the process never ends half-way through removing a cluster.
    public static func exitProcess(_ code: Int32) -> Never {
        ClusterRegistry.shared.exiting.withLock { _ in
            stopAll()
            exit(code)
        }
    }

    public static func stopClustersOnSignals() {
        ClusterRegistry.shared.installSignalHandlers()
    }
}

/// Cleanups for the clusters of this process, so a signal can stop them all.
final class ClusterRegistry: Sendable {
    static let shared = ClusterRegistry()
    private let state = Mutex<(next: Int, cleanups: [Int: @Sendable () -> Void])>((0, [:]))
    private let sources = Mutex<[any DispatchSourceSignal]>([])
    /// Held by whoever is ending the process.
    let exiting = Mutex<Void>(())

    func add(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        state.withLock { s in
            s.next += 1
            s.cleanups[s.next] = cleanup
            return s.next
        }
    }

    func remove(_ id: Int) -> (@Sendable () -> Void)? {
        state.withLock { $0.cleanups.removeValue(forKey: id) }
    }

    func removeAll() -> [@Sendable () -> Void] {
        state.withLock { s in
            defer { s.cleanups.removeAll() }
            return Array(s.cleanups.values)
        }
    }

    func installSignalHandlers() {
        sources.withLock { list in
            guard list.isEmpty else { return }
            for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
                signal(sig, SIG_IGN)
                let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                src.setEventHandler { LocalCluster.exitProcess(128 + sig) }
                src.resume()
                list.append(src)
            }
        }
    }
}
