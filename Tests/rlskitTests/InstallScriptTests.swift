import Foundation
import TestSupport
import XCTest

/// scripts/install puts the binary on a folder of the user's choice and says how to reach it;
/// the installed binary checks the project of the folder it is run in, not rlskit's own.
final class InstallScriptTests: XCTestCase {
    func testInstalledBinaryChecksTheProjectItRunsIn() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let install = Process()
        install.executableURL = URL(fileURLWithPath: Provisioned.repositoryRoot + "/scripts/install")
        install.arguments = ["--binary", CLI.binary, "--prefix", tmp + "/bin"]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = "/usr/bin:/bin"
        install.environment = env
        install.currentDirectoryURL = URL(fileURLWithPath: tmp)
        let out = Pipe()
        install.standardOutput = out
        try install.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        install.waitUntilExit()
        XCTAssertEqual(install.terminationStatus, 0, said)
        XCTAssertTrue(said.hasPrefix("installed rlskit "), said)
        XCTAssertTrue(said.contains(" to \(tmp)/bin/rlskit\n"), said)
        XCTAssertTrue(said.contains("\(tmp)/bin is not on your PATH: add  export PATH=\"\(tmp)/bin:$PATH\""), said)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tmp + "/bin/rlskit"))

        // A user's project: its own migrations and access file, nothing of rlskit's.
        let app = tmp + "/my-app"
        try FileManager.default.createDirectory(atPath: app + "/supabase/migrations", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: app + "/supabase/tests", withIntermediateDirectories: true)
        try """
        create table public.notes (id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id), body text);
        create index on public.notes (user_id);
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to authenticated;
        create policy "own notes" on public.notes for all to authenticated
          using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
        """.write(toFile: app + "/supabase/migrations/0001_notes.sql", atomically: true, encoding: .utf8)
        try """
        table public.notes
          owner user_id
          read owner
          write owner
        """.write(toFile: app + "/supabase/tests/access.rls", atomically: true, encoding: .utf8)
        let r = try CLI.run(["check"], environment: ["TMPDIR": tmp], directory: app, binary: tmp + "/bin/rlskit")
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("1 migration applied from supabase/migrations"), r.stdout)
        XCTAssertTrue(r.stdout.contains("public.notes"), r.stdout)
        XCTAssertFalse(r.stdout.contains("public.profiles"), "rlskit's own schema was checked: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("passed in"), r.stdout)
    }
}
