import Foundation
import TestSupport
import XCTest

/// scripts/ensure-deps against stand-in `id`, `sudo`, `apt-get` and `apt-cache` and an empty
/// system tree: one apt round for everything, one line per group, apt's log only on failure,
/// exit 2 with one line when sudo would ask for a password with no terminal.
final class EnsureDepsTests: XCTestCase {
    var tmp = ""

    override func setUpWithError() throws {
        tmp = try CLI.temporaryDirectory()
        let bin = tmp + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in ["bash", "ls", "sed", "sort", "tail", "head", "grep", "mkdir", "tee", "env", "cat", "rm", "mktemp"]
        {
            for dir in ["/usr/bin", "/bin"] where FileManager.default.fileExists(atPath: "\(dir)/\(tool)") {
                try? FileManager.default.createSymbolicLink(
                    atPath: "\(bin)/\(tool)", withDestinationPath: "\(dir)/\(tool)")
            }
        }
        let fakes = [
            "id": "echo \"${FAKE_UID:-0}\"",
            "sudo": "if [ \"$1\" = -n ]; then exit \"${FAKE_SUDO_N:-0}\"; fi; exec \"$@\"",
            "apt-get":
                "echo \"$*\" >> \"$FAKE_LOG\"; echo 'Reading package lists... (noise)'; if [ \"$1\" = install ] && [ -n \"${FAKE_APT_FAIL:-}\" ]; then echo 'E: Unable to locate package postgresql-16-pgtap'; exit 100; fi",
            "apt-cache": "printf 'postgresql\\n  Depends: postgresql-16\\n'",
        ]
        for (name, body) in fakes {
            try ("#!/bin/bash\n" + body + "\n").write(toFile: "\(bin)/\(name)", atomically: true, encoding: .utf8)
            chmod("\(bin)/\(name)", 0o755)
        }
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func run(_ args: [String] = ["--tests"], _ env: [String: String] = [:]) throws -> (Int32, String, [String]) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Provisioned.repositoryRoot + "/scripts/ensure-deps")
        p.arguments = args
        p.environment = ["PATH": tmp + "/bin", "RLSKIT_DEPS_ROOT": tmp + "/root", "FAKE_LOG": tmp + "/apt.log"]
            .merging(env) { $1 }
        p.currentDirectoryURL = URL(fileURLWithPath: tmp)
        let err = Pipe()
        p.standardError = err
        p.standardOutput = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let calls = ((try? String(contentsOfFile: tmp + "/apt.log", encoding: .utf8)) ?? "").split(separator: "\n")
            .map(String.init)
        return (p.terminationStatus, text, calls)
    }

    func testEverythingMissingIsOneQuietRound() throws {
        let (code, said, calls) = try run()
        XCTAssertEqual(code, 0, said)
        XCTAssertEqual(
            calls,
            [
                "update -qq",
                "install -y -qq --no-install-recommends pkg-config libpq-dev postgresql postgresql-16-pgtap postgresql-server-dev-16 gcc libc6-dev chromium libtap-parser-sourcehandler-pgtap-perl cmark-gfm",
            ])
        XCTAssertEqual(
            said.split(separator: "\n"),
            [
                "rlskit: installing build (libpq): pkg-config libpq-dev",
                "rlskit: installing PostgreSQL 16 server: postgresql", "rlskit: installing pgTAP: postgresql-16-pgtap",
                "rlskit: installing the sandbox's server module (compiler, server headers): postgresql-server-dev-16 gcc libc6-dev",
                "rlskit: installing test suite (chromium for the HTML report, pg_prove for the pgTAP comparison, cmark-gfm for the step summary): chromium libtap-parser-sourcehandler-pgtap-perl cmark-gfm",
            ])
        XCTAssertEqual(
            try String(
                contentsOfFile: tmp + "/root/etc/postgresql-common/createcluster.d/rlskit.conf", encoding: .utf8),
            "create_main_cluster = false\n")
    }

    func testFailedInstallShowsAptsLog() throws {
        let (code, said, _) = try run([], ["FAKE_APT_FAIL": "1"])
        XCTAssertEqual(code, 3, said)
        XCTAssertTrue(said.contains("E: Unable to locate package postgresql-16-pgtap"), said)
        XCTAssertTrue(
            said.contains(
                "rlskit: apt-get install pkg-config libpq-dev postgresql postgresql-16-pgtap postgresql-server-dev-16 gcc libc6-dev failed"
            ), said)
    }

    func testSudoWantingAPasswordWithoutTerminalIsOneLine() throws {
        let (code, said, calls) = try run([], ["FAKE_UID": "1000", "FAKE_SUDO_N": "1"])
        XCTAssertEqual(code, 2, said)
        XCTAssertEqual(said.split(separator: "\n").count, 1, said)
        XCTAssertTrue(said.hasPrefix("rlskit: installing packages needs root and sudo asks for a password"), said)
        XCTAssertTrue(said.contains("run: sudo "), said)
        XCTAssertEqual(calls, [])
    }

    func testNothingMissingSaysNothing() throws {
        for f in [
            "usr/include/postgresql/libpq-fe.h", "usr/lib/postgresql/16/bin/initdb",
            "usr/share/postgresql/16/extension/pgtap.control", "usr/include/postgresql/16/server/postgres.h",
        ] {
            let path = tmp + "/root/" + f
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data())
        }
        for tool in ["pkg-config", "chromium", "pg_prove", "cc", "cmark-gfm"] {
            try "#!/bin/bash\n".write(toFile: tmp + "/bin/" + tool, atomically: true, encoding: .utf8)
            chmod(tmp + "/bin/" + tool, 0o755)
        }
        let (code, said, calls) = try run()
        XCTAssertEqual(code, 0, said)
        XCTAssertEqual(said, "")
        XCTAssertEqual(calls, [])
    }
}
