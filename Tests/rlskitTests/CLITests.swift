import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

final class CLITests: XCTestCase {
    func testHelpOnEveryLevel() throws {
        let top = try CLI.run(["--help"])
        XCTAssertEqual(top.code, 0)
        XCTAssertTrue(top.stdout.contains("commands:"))
        for command in ["check", "apply", "test", "audit"] {
            XCTAssertTrue(top.stdout.contains("  \(command) "), command)
            let sub = try CLI.run([command, "--help"])
            XCTAssertEqual(sub.code, 0, command)
            XCTAssertTrue(sub.stdout.contains("usage: rlskit \(command)"), command)
            XCTAssertTrue(sub.stdout.contains("--database-url"), command)
        }
        XCTAssertEqual(try CLI.run([]).code, 2)
    }

    func testVersion() throws {
        let v = try CLI.run(["--version"])
        XCTAssertEqual(v.code, 0)
        XCTAssertTrue(v.stdout.hasPrefix("rlskit "))
    }

    func testUnknownFlagAndCommandExit2() throws {
        let flag = try CLI.run(["check", "--bogus"])
        XCTAssertEqual(flag.code, 2)
        XCTAssertTrue(flag.stderr.hasPrefix("rlskit: unknown option '--bogus'\n"))
        XCTAssertTrue(flag.stderr.contains("usage: rlskit check"))
        XCTAssertEqual(flag.stdout, "")
        let cmd = try CLI.run(["frobnicate"])
        XCTAssertEqual(cmd.code, 2)
        XCTAssertTrue(cmd.stderr.hasPrefix("rlskit: unknown command 'frobnicate'"))
    }

    func testUnreachableServerExits3WithOneLineAndNoPassword() throws {
        let secret = "pw-\(UUID().uuidString)"
        let r = try CLI.run([
            "check", "--database-url", "postgresql://alice:\(secret)@127.0.0.1:1/app?connect_timeout=3",
        ])
        XCTAssertEqual(r.code, 3)
        XCTAssertFalse(r.output.contains(secret))
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(
            r.stderr.hasPrefix("rlskit: cannot connect to app on 127.0.0.1:1"),
            r.stderr)
    }

    func testMalformedDatabaseURLExits2() throws {
        let r = try CLI.run(["check", "--database-url", "postgresql://a:b@[::1/x"])
        XCTAssertEqual(r.code, 2)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertFalse(r.output.contains(":b@"))
    }

    func testCheckOnThrowawayServerLeavesNothing() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(["check"], environment: ["TMPDIR": tmp])
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("PostgreSQL"), r.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [])
    }

    func testKeepLeavesTheDatabaseRunningWithInstructions() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(["check", "--keep"], environment: ["TMPDIR": tmp])
        XCTAssertEqual(r.code, 0, r.output)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        // No password in the text: as root none exists (the kernel vouches for root); else it
        // is in a private file named for PGPASSFILE.
        let prefix = "kept the throwaway database; connect with: "
        let connect = try XCTUnwrap(lines.first { $0.hasPrefix(prefix) }, r.stdout)
        XCTAssertFalse(connect.contains("password"), connect)
        let info = String(connect.split(separator: "\"")[1])
        var extra = ""
        if connect.hasPrefix(prefix + "PGPASSFILE=") {
            let passFile = String(connect.dropFirst((prefix + "PGPASSFILE=").count).prefix { $0 != " " })
            var st = stat()
            XCTAssertEqual(stat(passFile, &st), 0)
            XCTAssertEqual(st.st_mode & 0o077, 0)
            XCTAssertThrowsError(try PostgresConnection(ConnectionString(info)))
            extra = " passfile=" + ConnectionString.quoted(passFile)
        } else {
            XCTAssertEqual(geteuid(), 0, connect)
        }
        let conn = try PostgresConnection(ConnectionString(info + extra))
        XCTAssertEqual(
            try conn.query("select count(*)::int from rlskit.migrations").rows[0].decode(0) as Int,
            BuiltInSQL.files(in: "migrations").count)
        let stop = try XCTUnwrap(lines.first { $0.hasPrefix("stop it with: kill ") })
        let pid = try XCTUnwrap(Int32(stop.split(separator: " ")[4]))
        kill(pid, SIGQUIT)
        for _ in 0..<300 where kill(pid, 0) == 0 { usleep(10_000) }
        XCTAssertNotEqual(kill(pid, 0), 0)
    }

    /// SIGTERM while the throwaway server runs (and, separately, while initdb runs) ends the
    /// server and removes its directory.
    func testSIGTERMRemovesTheCluster() throws {
        for waitForServer in [true, false] {
            let tmp = try CLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: tmp) }
            let (p, _, _) = try CLI.start(["check"], environment: ["TMPDIR": tmp, "RLSKIT_TEST_HOLD_SECONDS": "30"])
            var serverPID: Int32 = 0
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let dirs = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
                if let d = dirs.first {
                    if !waitForServer { break }
                    if let pidText = try? String(contentsOfFile: "\(tmp)/\(d)/data/postmaster.pid", encoding: .utf8),
                        let pid = Int32(pidText.split(separator: "\n").first ?? ""),
                        (try? String(contentsOfFile: "\(tmp)/\(d)/data/postmaster.pid", encoding: .utf8))?.contains(
                            "ready") == true
                    {
                        serverPID = pid
                        break
                    }
                }
                usleep(5_000)
            }
            kill(p.processIdentifier, SIGTERM)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 128 + SIGTERM)
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: tmp), [], "waitForServer=\(waitForServer)")
            if waitForServer {
                XCTAssertGreaterThan(serverPID, 0)
                var gone = false
                for _ in 0..<500 where !gone {
                    gone = kill(serverPID, 0) != 0
                    if !gone { usleep(10_000) }
                }
                XCTAssertTrue(gone, "server process still running")
            }
        }
    }
}

extension CLITests {
    /// Reports never replace symlinks or devices, and output that cannot be written is exit 2.
    func testOutputsAreWrittenThroughAndFailuresAreReported() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createSymbolicLink(atPath: tmp + "/link.xml", withDestinationPath: tmp + "/target.xml")
        let r = try CLI.run(
            ["check", "--builtin", "--junit", tmp + "/link.xml"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: tmp + "/link.xml"), tmp + "/target.xml")
        XCTAssertTrue(try String(contentsOfFile: tmp + "/target.xml", encoding: .utf8).contains("<testsuites"))
        if FileManager.default.fileExists(atPath: "/dev/full") {
            let full = try CLI.run(
                ["check", "--builtin", "--junit", "/dev/full"], environment: ["TMPDIR": tmp], directory: tmp)
            XCTAssertEqual(full.code, 2)
            XCTAssertTrue(
                full.stderr.hasSuffix("rlskit: cannot write /dev/full: No space left on device\n"), full.stderr)
            var attributes = stat()
            XCTAssertEqual(lstat("/dev/full", &attributes), 0)
            XCTAssertEqual(attributes.st_mode & S_IFMT, S_IFCHR, "/dev/full must stay a device")
        }
        // A machine format on standard output is all that goes there.
        let json = try CLI.run(
            ["check", "--builtin", "--format", "json"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(json.code, 0)
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(doc?["passed"] as? Bool, true)
        XCTAssertTrue(json.stderr.contains("✓ audit"))
    }
}

extension CLITests {
    /// Even kill -9 (no handler can run) leaves no server or directory: the watchdog cleans up.
    func testKill9LeavesNothingBehind() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let (p, _, _) = try CLI.start(["check"], environment: ["TMPDIR": tmp, "RLSKIT_TEST_HOLD_SECONDS": "30"])
        var serverPID: Int32 = 0
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, serverPID == 0 {
            if let d = try FileManager.default.contentsOfDirectory(atPath: tmp).first,
                let text = try? String(contentsOfFile: "\(tmp)/\(d)/data/postmaster.pid", encoding: .utf8),
                text.contains("ready")
            {
                serverPID = Int32(text.split(separator: "\n")[0]) ?? 0
            }
            usleep(10_000)
        }
        XCTAssertGreaterThan(serverPID, 0)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        var clean = false
        for _ in 0..<500 where !clean {
            clean = try kill(serverPID, 0) != 0 && FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty
            if !clean { usleep(10_000) }
        }
        XCTAssertTrue(clean, "server or directory left after kill -9")
    }
}

extension CLITests {
    /// `--junit /dev/stdout` shares standard output with the summary: both arrive whole.
    func testReportToDevStdoutKeepsTheSummary() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(
            ["check", "--builtin", "--junit", "/dev/stdout"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("<testsuites"))
        XCTAssertTrue(r.stdout.contains("</testsuites>"))
        XCTAssertTrue(r.stdout.contains("passed in"))
    }
}
