import Foundation
import TestSupport
import XCTest

/// `check --watch` re-runs on a change, leads with what changed, survives a migration that no
/// longer applies, and Ctrl-C leaves nothing behind.
final class CheckWatchCLITests: ScratchTestCase {
    static let migration = """
        create table public.notes (id uuid primary key default gen_random_uuid(), owner uuid references auth.users (id));
        alter table public.notes enable row level security;
        create policy "own" on public.notes for all to authenticated using (owner = (select auth.uid()));
        grant select, insert, update, delete on public.notes to authenticated;
        """

    /// Reads a pipe as it fills, so a test can wait for a line.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] h in
                let chunk = h.availableData
                guard let self, !chunk.isEmpty else { return }
                self.lock.lock()
                self.data.append(chunk)
                self.lock.unlock()
            }
        }
        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
        /// Waits until `needle` has appeared `count` times.
        func wait(for needle: String, count: Int = 1, seconds: Double = 60) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if text.components(separatedBy: needle).count - 1 >= count { return true }
                usleep(50_000)
            }
            return false
        }
    }

    func testReRunsOnChangeAndStopsClean() throws {
        let dir = try folder([
            "supabase/migrations/20261201000000_a.sql": Self.migration,
            "supabase/tests/notes.rls": "table public.notes\n  owner owner\n  read owner\n  write owner\n",
        ])
        let tmp = try folder([:])
        let (p, out, err) = try CLI.start(["check", "--watch"], environment: ["TMPDIR": tmp], directory: dir)
        let stdout = Lines(out)
        let stderr = Lines(err)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)"), stdout.text + stderr.text)
        XCTAssertTrue(stdout.text.contains("passed in"), stdout.text)

        let file = dir + "/supabase/migrations/20261201000000_a.sql"
        try Self.migration.replacingOccurrences(of: "owner = (select auth.uid())", with: "true")
            .write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)", count: 2), stdout.text + stderr.text)
        XCTAssertTrue(stdout.text.contains("── run 2: changed supabase/migrations/20261201000000_a.sql"), stdout.text)
        XCTAssertTrue(stdout.text.contains("newly failing (6):\n  ✗ public.notes [A] A deletes B's row"), stdout.text)

        // A migration that no longer applies: one line, and the watch goes on.
        try (Self.migration + "\nthis is not sql;\n").write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)", count: 3), stdout.text + stderr.text)
        XCTAssertTrue(stderr.text.contains("20261201000000_a.sql:5:1: syntax error"), stderr.text)

        try Self.migration.write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)", count: 4), stdout.text + stderr.text)
        XCTAssertTrue(stdout.text.contains("newly passing (6):"), stdout.text)

        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 128 + SIGINT)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [])
    }

    /// The server's preloaded libraries are fixed while it runs: a migration that starts to
    /// name pg_cron gets a new server that preloads it, as a fresh check would, and the kept
    /// server comes back once no migration names it.
    func testANewPreloadedExtensionGetsANewServer() throws {
        let dir = try folder(["supabase/migrations/20261201000000_a.sql": Self.migration])
        let (p, out, err) = try CLI.start(["check", "--watch", "--allow-empty"], directory: dir)
        let stdout = Lines(out)
        let stderr = Lines(err)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)"), stdout.text + stderr.text)
        let cron = dir + "/supabase/migrations/20261202000000_cron.sql"
        try "create extension if not exists pg_cron;\n".write(toFile: cron, atomically: true, encoding: .utf8)
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)", count: 2), stdout.text + stderr.text)
        let all = stdout.text + stderr.text
        XCTAssertTrue(all.contains("the migrations now preload pg_cron (the server preloads no library)"), all)
        XCTAssertEqual(all.components(separatedBy: "passed in").count - 1, 2, all)
        XCTAssertFalse(all.contains("pg_cron can only be loaded"), all)
        try FileManager.default.removeItem(atPath: cron)
        XCTAssertTrue(stdout.wait(for: "(Ctrl-C to stop)", count: 3), stdout.text + stderr.text)
        XCTAssertEqual((stdout.text + stderr.text).components(separatedBy: "passed in").count - 1, 3)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
    }

    func testRefusesWhatItCannotWatch() throws {
        let given = try CLI.run(["check", "--watch", "--database-url", "postgresql://x@127.0.0.1:1/x"])
        XCTAssertEqual(given.code, 2, given.output)
        XCTAssertTrue(given.stderr.hasPrefix("rlskit: --watch runs on a throwaway server"), given.stderr)
        let empty = try CLI.run(["check", "--watch"], directory: try folder([:]))
        XCTAssertEqual(empty.code, 2, empty.output)
        XCTAssertTrue(empty.stderr.hasPrefix("rlskit: nothing to watch"), empty.stderr)
    }
}
