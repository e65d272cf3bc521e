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
                "install -y -qq --no-install-recommends pkg-config libpq-dev libcurl4-openssl-dev postgresql postgresql-16-pgtap postgresql-server-dev-16 gcc libc6-dev chromium libtap-parser-sourcehandler-pgtap-perl cmark-gfm python3 python3-pip",
            ])
        XCTAssertEqual(
            said.split(separator: "\n"),
            [
                "rlskit: installing build (libpq, libcurl): pkg-config libpq-dev libcurl4-openssl-dev",
                "rlskit: installing PostgreSQL 16 server: postgresql", "rlskit: installing pgTAP: postgresql-16-pgtap",
                "rlskit: installing the sandbox's server module (compiler, server headers): postgresql-server-dev-16 gcc libc6-dev",
                "rlskit: installing test suite (chromium for the HTML report, pg_prove for the pgTAP comparison, cmark-gfm for the step summary, python3 and pip for the test scripts): chromium libtap-parser-sourcehandler-pgtap-perl cmark-gfm python3 python3-pip",
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
                "rlskit: apt-get install pkg-config libpq-dev libcurl4-openssl-dev postgresql postgresql-16-pgtap postgresql-server-dev-16 gcc libc6-dev failed"
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

    /// Everything installed: the system tree's files, and the tools on PATH (python3 with pip).
    func installEverything() throws {
        for f in [
            "usr/include/postgresql/libpq-fe.h", "usr/lib/postgresql/16/bin/initdb",
            "usr/share/postgresql/16/extension/pgtap.control", "usr/include/postgresql/16/server/postgres.h",
            "usr/lib/x86_64-linux-gnu/libcurl.so",
        ] {
            let path = tmp + "/root/" + f
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data())
        }
        for tool in ["pkg-config", "chromium", "pg_prove", "cc", "cmark-gfm", "python3"] {
            try "#!/bin/bash\n".write(toFile: tmp + "/bin/" + tool, atomically: true, encoding: .utf8)
            chmod(tmp + "/bin/" + tool, 0o755)
        }
    }

    func testNothingMissingSaysNothing() throws {
        try installEverything()
        let (code, said, calls) = try run()
        XCTAssertEqual(code, 0, said)
        XCTAssertEqual(said, "")
        XCTAssertEqual(calls, [])
    }

    /// A python3 without pip (Debian's python3 package alone): the tests' pip installs need python3-pip.
    func testPythonWithoutPipGetsPip() throws {
        try installEverything()
        try "#!/bin/bash\n[ \"$1 $2\" = \"-m pip\" ] && exit 1\nexit 0\n".write(
            toFile: tmp + "/bin/python3", atomically: true, encoding: .utf8)
        let (code, said, calls) = try run()
        XCTAssertEqual(code, 0, said)
        XCTAssertEqual(calls, ["update -qq", "install -y -qq --no-install-recommends python3-pip"])
        XCTAssertTrue(said.hasSuffix(": python3-pip\n"), said)
    }

    /// Without --tests, none of the test suite's tools are asked for.
    func testWithoutTestsNoTestTools() throws {
        try installEverything()
        for tool in ["chromium", "pg_prove", "cmark-gfm", "python3"] {
            try FileManager.default.removeItem(atPath: tmp + "/bin/" + tool)
        }
        let (code, said, calls) = try run([])
        XCTAssertEqual(code, 0, said)
        XCTAssertEqual(calls, [])
    }
}
