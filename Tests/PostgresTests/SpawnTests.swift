import Foundation
import XCTest

@_spi(CLI) @testable import Postgres

final class SpawnTests: XCTestCase {
    func testOutputIsStandardOutputTrimmed() throws {
        XCTAssertEqual(try Spawn.output("/bin/sh", ["-c", "echo one; echo two >&2; echo three"]), "one\nthree")
    }

    func testFailureCarriesTheFirstErrorLine() {
        XCTAssertThrowsError(try Spawn.output("/bin/sh", ["-c", "echo first >&2; echo second >&2; exit 3"])) {
            XCTAssertEqual(($0 as? LocalClusterError)?.message, "first")
        }
        XCTAssertThrowsError(try Spawn.output("/bin/sh", ["-c", "kill -9 $$"])) {
            XCTAssertEqual(($0 as? LocalClusterError)?.message, "sh failed (exit 137)")
        }
        XCTAssertThrowsError(try Spawn.output("/nonexistent/tool", []))
    }

    /// A child filling standard error while we read standard output must not hang.
    func testBothPipesAreDrained() throws {
        let out = try Spawn.output(
            "/bin/sh",
            ["-c", "i=0; while [ $i -lt 3000 ]; do echo 'a line of noise on stderr' >&2; i=$((i+1)); done; echo ok"])
        XCTAssertEqual(out, "ok")
    }

    /// Only the three standard descriptors reach a child (a server runs as another user).
    func testNoOtherDescriptorIsInherited() throws {
        let fd = open("/dev/null", O_RDONLY)  // no O_CLOEXEC on purpose
        XCTAssertGreaterThan(fd, 2)
        defer { close(fd) }
        let open = try Spawn.output("/bin/sh", ["-c", "ls /proc/self/fd | tr '\\n' ' '"])
        let fds = open.split(separator: " ").compactMap { Int32($0) }
        XCTAssertFalse(fds.contains(fd), "inherited descriptors: \(open)")
        XCTAssertTrue(fds.contains(0) && fds.contains(1) && fds.contains(2))
    }

    func testEnvironmentIsOnlyWhatIsGiven() throws {
        setenv("RLSKIT_SPAWN_SECRET", "x", 1)
        defer { unsetenv("RLSKIT_SPAWN_SECRET") }
        XCTAssertEqual(try Spawn.output("/usr/bin/env", []), "LC_ALL=C\nPATH=/usr/local/bin:/usr/bin:/bin")
        XCTAssertEqual(try Spawn.output("/usr/bin/env", [], environment: ["A": "1"]), "A=1")
    }

    func testStartsInTheFolderGiven() throws {
        var out: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&out), 0)
        let pid = try Spawn.start("/bin/pwd", [], environment: [:], stdout: out[1], directory: "/usr")
        close(out[1])
        let (data, _) = Spawn.readBoth(out[0], open("/dev/null", O_RDONLY))
        XCTAssertEqual(Spawn.wait(pid), 0)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "/usr\n")
    }

    /// A server that died is not running, though nobody has reaped it yet (a zombie answers
    /// kill(pid, 0)); and its pid is forgotten, so a stop never signals whoever reuses it.
    func testADeadServerIsNotRunning() throws {
        let cluster = try LocalCluster()
        defer { cluster.stop() }
        let pid = cluster.serverPID
        XCTAssertTrue(cluster.isRunning)
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        let deadline = Date().addingTimeInterval(10)
        while cluster.isRunning && Date() < deadline { usleep(5_000) }
        XCTAssertFalse(cluster.isRunning)
        XCTAssertEqual(cluster.childProcess.pid.withLock { $0 }, 0)
    }
}
