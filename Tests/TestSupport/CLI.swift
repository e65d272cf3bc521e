import Foundation

/// Runs the built `rlskit` binary the way a user would and captures what it prints.
public enum CLI {
    public struct Outcome: Sendable {
        public var code: Int32
        public var stdout: String
        public var stderr: String
        public var output: String { stdout + stderr }
    }

    /// The executable next to the test bundle.
    public static var binary: String {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return dir.appendingPathComponent("rlskit").path
    }

    public static func start(
        _ args: [String], environment: [String: String] = [:], directory: String? = nil, binary: String? = nil
    ) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary ?? Self.binary)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        // CI's own summary and annotation switches stay out unless a test sets them.
        for k in [
            "DATABASE_URL", "PGHOST", "PGPORT", "PGDATABASE", "PGSERVICE", "PGHOSTADDR", "GITHUB_STEP_SUMMARY",
            "GITHUB_ACTIONS",
        ] {
            env.removeValue(forKey: k)
        }
        env.merge(environment) { $1 }
        p.environment = env
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return (p, out, err)
    }

    public static func run(
        _ args: [String], environment: [String: String] = [:], directory: String? = nil, binary: String? = nil
    ) throws -> Outcome {
        let (p, out, err) = try start(args, environment: environment, directory: directory, binary: binary)
        // Read both pipes before waiting: a child writing more than a pipe holds would block.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return Outcome(
            code: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh empty directory, removed by the caller.
    public static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "rlskit-test-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o777)
        return path
    }
}
