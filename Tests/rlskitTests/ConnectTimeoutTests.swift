import Foundation
import TestSupport
import XCTest

/// A loopback port that accepts connections and never says a word, like a hung server or a
/// firewall that swallows the traffic.
final class SilentListener: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private var accepted: [Int32] = []
    private let lock = NSLock()

    init() throws {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, len) }
        }
        guard bound == 0, listen(s, 64) == 0 else {
            close(s)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        fd = s
        Thread { [self] in
            while true {
                let c = accept(fd, nil, nil)
                if c < 0 { return }
                lock.withLock { accepted.append(c) }
            }
        }.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for c in accepted { close(c) }
    }
}

final class ConnectTimeoutTests: XCTestCase {
    struct Outcome {
        var code: Int32
        var stdout: String
        var stderr: String
        var output: String { stdout + stderr }
    }

    /// Runs the commands side by side; any still running after `limit` seconds is killed and fails.
    func runAll(_ commands: [[String]], environment: [String: String], limit: Double) throws -> [(Outcome, Double)] {
        let started = Date()
        let running = try commands.map { try CLI.start($0, environment: environment) }
        let readers = running.map { ($0.1, $0.2) }
        var finished = [Double?](repeating: nil, count: running.count)
        while finished.contains(where: { $0 == nil }), Date().timeIntervalSince(started) < limit {
            for (i, (p, _, _)) in running.enumerated() where finished[i] == nil && !p.isRunning {
                finished[i] = Date().timeIntervalSince(started)
            }
            usleep(50_000)
        }
        for (p, _, _) in running where p.isRunning { p.terminate() }
        return running.enumerated().map { i, r in
            r.0.waitUntilExit()
            let out = String(decoding: readers[i].0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: readers[i].1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (
                Outcome(code: finished[i] == nil ? -1 : r.0.terminationStatus, stdout: out, stderr: err),
                finished[i] ?? limit
            )
        }
    }

    func commands(_ url: String, dir: String) -> [[String]] {
        [
            ["audit", "--database-url", url], ["test", "--database-url", url, dir + "/a.rls"],
            ["apply", "--database-url", url],
            ["check", "--database-url", url], ["pgtap", "--database-url", url, dir + "/t.sql"],
            ["snapshot", "--database-url", url], ["init", "--database-url", url, "--output", "-"],
            ["diff", "--database-url", url, "--against", url], ["storage", "drain", "--database-url", url],
        ]
    }

    func fixtures() throws -> String {
        let dir = try CLI.temporaryDirectory()
        try "table public.profiles\n  owner id\n  read anyone\n  write owner\n".write(
            toFile: dir + "/a.rls", atomically: true, encoding: .utf8)
        try "select plan(1);\nselect ok(true);\n".write(toFile: dir + "/t.sql", atomically: true, encoding: .utf8)
        return dir
    }

    /// Without any setting of the user's, every command that connects gives up after the
    /// default 10 s with one line naming the host, exit 3.
    func testEveryCommandGivesUpOnASilentServerByDefault() throws {
        let silent = try SilentListener()
        let dir = try fixtures()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = "postgresql://u:secretpw@127.0.0.1:\(silent.port)/x"
        let list = commands(url, dir: dir)
        let results = try runAll(list, environment: ["PGCONNECT_TIMEOUT": ""], limit: 40)
        for (cmd, (r, seconds)) in zip(list, results) {
            XCTAssertEqual(r.code, 3, "\(cmd[0]) still running or wrong code: \(r.output)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(cmd[0]): \(r.stderr)")
            XCTAssertTrue(
                r.stderr.hasPrefix("rlskit: cannot connect to x on 127.0.0.1:\(silent.port)"),
                "\(cmd[0]): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("timeout expired (no answer within 10 s"), "\(cmd[0]): \(r.stderr)")
            XCTAssertFalse(r.output.contains("secretpw"))
            XCTAssertGreaterThan(seconds, 9, cmd[0])
        }
    }

    /// The user's own limit wins: PGCONNECT_TIMEOUT, or connect_timeout in the URL.
    func testUserTimeoutWins() throws {
        let silent = try SilentListener()
        let base = "postgresql://u@127.0.0.1:\(silent.port)/x"
        let results = try runAll(
            [["audit", "--database-url", base], ["apply", "--database-url", base + "?connect_timeout=3"]],
            environment: ["PGCONNECT_TIMEOUT": "2"], limit: 9)
        XCTAssertEqual(results[0].0.code, 3, results[0].0.output)
        XCTAssertTrue(results[0].0.stderr.contains("no answer within 2 s"), results[0].0.stderr)
        XCTAssertLessThan(results[0].1, 6)
        XCTAssertEqual(results[1].0.code, 3, results[1].0.output)
        XCTAssertTrue(results[1].0.stderr.contains("no answer within 3 s"), results[1].0.stderr)
        XCTAssertLessThan(results[1].1, 7)
    }
}
