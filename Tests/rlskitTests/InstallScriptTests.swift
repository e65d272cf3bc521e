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

    /// The Swift runtime libraries a binary loads at run time (from `ldd`: the NEEDED entries,
    /// resolved); a static Swift runtime leaves none.
    static func dynamicSwiftLibraries(_ binary: String) throws -> (swift: [String], all: [String]) {
        let r = try CLI.run([binary], binary: try Tools.require("ldd", for: "the static binary test"))
        let names = r.stdout.split(separator: "\n").compactMap {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
        let swift = names.filter { name in
            ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"].contains {
                name.hasPrefix($0)
            }
        }
        return (swift, names)
    }

    /// scripts/install and scripts/check build with the same flags, the static Swift runtime
    /// among them, and install what `--show-bin-path` names (a stand-in `swift` records the calls:
    /// a real release build takes minutes).
    func testInstallAndCheckBuildWithTheStaticSwiftRuntime() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        for dir in ["stub", "built"] {
            try FileManager.default.createDirectory(atPath: tmp + "/" + dir, withIntermediateDirectories: true)
        }
        let stubs = [
            "stub/swift":
                "echo \"$*\" >>\"$STUB_LOG\"; case \" $* \" in *\" --show-bin-path \"*) echo \"$STUB_BUILT\" ;; esac",
            "built/rlskit": "echo \"rlskit 9.9.9 $*\"",
        ]
        for (name, body) in stubs {
            try ("#!/bin/bash\n" + body + "\n").write(toFile: tmp + "/" + name, atomically: true, encoding: .utf8)
            chmod(tmp + "/" + name, 0o755)
        }
        let env = [
            "PATH": tmp + "/stub:/usr/bin:/bin", "STUB_LOG": tmp + "/swift.log", "STUB_BUILT": tmp + "/built",
        ]
        let install = try CLI.run(
            ["--prefix", tmp + "/bin"], environment: env, directory: tmp,
            binary: Provisioned.repositoryRoot + "/scripts/install")
        XCTAssertEqual(install.code, 0, install.output)
        XCTAssertTrue(
            install.stdout.hasPrefix("installed rlskit 9.9.9 --version to \(tmp)/bin/rlskit\n"), install.output)
        let check = try CLI.run(
            ["--builtin"], environment: env, directory: tmp, binary: Provisioned.repositoryRoot + "/scripts/check")
        XCTAssertEqual(check.code, 0, check.output)
        XCTAssertEqual(check.stdout, "rlskit 9.9.9 check --builtin\n")
        let build = "build -c release --static-swift-stdlib --product rlskit"
        XCTAssertEqual(
            try String(contentsOfFile: tmp + "/swift.log", encoding: .utf8).split(separator: "\n"),
            [build, build + " --show-bin-path", build, build + " --show-bin-path"].map { Substring($0) })
    }

    /// What `--static-swift-stdlib` gives on this toolchain, on a small program using Foundation
    /// and its networking as rlskit does: no Swift library to load (libcurl stays, a Debian
    /// package), so the file runs where no toolchain is. (A release build of rlskit itself
    /// takes minutes; scripts/install's flags are checked above.)
    func testStaticSwiftRuntimeLeavesNoSwiftLibraryToLoad() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try """
        import Foundation
        #if canImport(FoundationNetworking)
            import FoundationNetworking
        #endif
        print(URLSessionConfiguration.ephemeral.timeoutIntervalForRequest, Date().timeIntervalSince1970 > 0)

        """.write(toFile: tmp + "/main.swift", atomically: true, encoding: .utf8)
        let swiftc = try Tools.require("swiftc", for: "the static binary test")
        let built = try CLI.run(
            ["-static-stdlib", tmp + "/main.swift", "-o", tmp + "/main"], environment: ["TMPDIR": tmp],
            directory: tmp, binary: swiftc)
        XCTAssertEqual(built.code, 0, built.output)
        let (swift, all) = try Self.dynamicSwiftLibraries(tmp + "/main")
        XCTAssertEqual(swift, [], "\(all)")
        XCTAssertTrue(all.contains("libcurl.so.4"), "\(all)")
        let ran = try CLI.run([], binary: tmp + "/main")
        XCTAssertEqual(ran.stdout, "60.0 true\n", ran.output)
        // The toolchain's own dynamic build does load them: the check tells the two apart.
        XCTAssertNotEqual(try Self.dynamicSwiftLibraries(CLI.binary).swift, [])
    }
}
