import Foundation

/// A small deterministic generator (SplitMix64): fuzz cases replay from their printed seed.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    /// The seed from `RLSKIT_FUZZ_SEED` (to replay a failure), else the test's fixed one; printed
    /// with the test's name so that a failing run can be replayed exactly.
    public static func printed(_ fixed: UInt64, _ test: String = #function) -> SeededGenerator {
        let seed = ProcessInfo.processInfo.environment["RLSKIT_FUZZ_SEED"].flatMap { UInt64($0) } ?? fixed
        // stderr: stdout also carries the test list that the test runner reads.
        FileHandle.standardError.write(Data("fuzz seed \(seed) for \(test) (replay: RLSKIT_FUZZ_SEED=\(seed))\n".utf8))
        return SeededGenerator(seed: seed)
    }
}
