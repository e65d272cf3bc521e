import Foundation

/// With RLSKIT_TRACE set: how long each step of a run took, on standard error (bench/watch.sh
/// reads it). Costs nothing otherwise.
struct StepTrace {
    static let enabled = ProcessInfo.processInfo.environment["RLSKIT_TRACE"] != nil
    let scope: String
    var clock = Date()

    init(_ scope: String) { self.scope = scope }

    mutating func step(_ what: String) {
        guard Self.enabled else { return }
        FileHandle.standardError.write(
            Data("rlskit: \(scope) \(what): \(Int(-clock.timeIntervalSinceNow * 1000)) ms\n".utf8))
        clock = Date()
    }
}
