import Foundation

/// The outside tools some tests need (chromium, pg_prove, cmark-gfm, python3). `scripts/test`
/// installs them; a test that finds one missing fails with the command that installs it, it
/// never skips.
public enum Tools {
    /// The one command that installs every tool the tests use.
    public static let installCommand = "scripts/ensure-deps --tests"

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The first of `names` found on PATH, nil when none is.
    public static func find(_ names: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in names {
            for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    /// The first of `names` on PATH, or an error saying what it is for and how to install it.
    public static func require(_ names: String..., for what: String) throws -> String {
        guard let found = find(names) else {
            throw Missing(description: "\(names[0]) is not installed (\(what) need it); run: \(installCommand)")
        }
        return found
    }
}

/// python3 for the test scripts in Tests/Scripts, with the modules pip installs into
/// .build/test-python (not the system: Debian's Python refuses system-wide pip installs).
public enum Python {
    public static var packages: String { Provisioned.repositoryRoot + "/.build/test-python" }

    /// Runs `python3 ARGS` in the repository root with `input` on its standard input; its output,
    /// or an error with the end of its standard error when it exits non-zero.
    @discardableResult
    public static func run(_ args: [String], input: Data = Data()) throws -> Data {
        let python = try Tools.require("python3", for: "the test scripts")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: Provisioned.repositoryRoot)
        var env = ProcessInfo.processInfo.environment
        env["PYTHONPATH"] = packages + (env["PYTHONPATH"].map { ":" + $0 } ?? "")
        p.environment = env
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = stderr
        try p.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data()
        nonisolated(unsafe) var err = Data()
        DispatchQueue.global().async(group: group) { out = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        group.wait()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Tools.Missing(
                description:
                    "python3 \(args.joined(separator: " ")) failed: \(String(decoding: err, as: UTF8.self).suffix(400))"
            )
        }
        return out
    }

    /// Makes `import module` work, installing `package` with pip when it does not; an error
    /// with the command to run when that fails.
    public static func ensure(module: String, package: String) throws {
        _ = try Tools.require("python3", for: "the test scripts")
        if (try? run(["-c", "import \(module)"])) != nil { return }
        let base = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", packages, package]
        do {
            if (try? run(base)) == nil { try run(base + ["--break-system-packages"]) }
        } catch {
            throw Tools.Missing(
                description:
                    "the Python module \(module) is missing and pip could not install \(package) (\(error)); run: \(Tools.installCommand) (python3 and pip), and check that pip reaches the package index"
            )
        }
    }
}
