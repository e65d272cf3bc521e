import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// pg_prove itself, on the same fixtures: the shipped verdicts must be what it says, and
/// rlskit must agree with it file by file.
final class PgTAPComparisonTests: XCTestCase {
    func testPgProveAgreesWithTheShippedVerdicts() throws {
        let pgProve = try PgTAPFixtures.requirePgProve()
        // pg_prove has no built-in helpers: install ours for it, committed, in its own database.
        let db = try PgTAPFixtures.standInDatabase(pgtap: true, extraSQL: SupabaseTestHelpers.installSQL())
        defer { TestServer.drop(db.name) }
        let (args, env) = try Self.psqlArguments(db.connectionString)

        let ours = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(ours.name) }
        let files = try PgTAPRunner.discover([PgTAPFixtures.dir])
        let rlskit = try PgTAPRunner(connection: ours.connectionString).run(files)

        // One pg_prove per file (its exit code is the verdict), all started at once.
        let expected = try PgTAPFixtures.expectedVerdicts()
        let runs = try expected.map { e -> (Process, Pipe) in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: pgProve)
            p.arguments = args + [e.file]
            p.currentDirectoryURL = URL(fileURLWithPath: PgTAPFixtures.dir)
            p.environment = env
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            return (p, out)
        }
        for (e, (p, out)) in zip(expected, runs) {
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus == 0, e.passes, "pg_prove on \(e.file)")
            let mine = rlskit.files.first { ($0.file as NSString).lastPathComponent == e.file }
            XCTAssertEqual(mine?.passed, p.terminationStatus == 0, "rlskit vs pg_prove on \(e.file)")
            XCTAssertEqual(
                mine.map { String($0.summary.tests.count) }, Self.testsRun(text), "tests run in \(e.file)\n\(text)")
        }
    }

    /// The shared-state suite, one pg_prove per file in name order on one database (each file
    /// its own psql session, as `pg_prove dir/` runs them), with basejump's helpers installed.
    func testPgProveAgreesOnTheSharedStateSuite() throws {
        let pgProve = try PgTAPFixtures.requirePgProve()
        let project = try String(contentsOfFile: PgTAPFixtures.sharedProjectSQL, encoding: .utf8)
        let theirs = try PgTAPFixtures.standInDatabase(
            extraSQL: "create extension pgtap with schema extensions;\n" + SupabaseTestHelpers.installSQL(.basejump)
                + project)
        defer { TestServer.drop(theirs.name) }
        try PostgresConnection(theirs.connectionString).query(
            "alter database \(SQL.ident(theirs.name)) set search_path = \"$user\", public, extensions")
        let ours = try PgTAPFixtures.standInDatabase(extraSQL: project)
        defer { TestServer.drop(ours.name) }

        // The dbdev preamble needs the network: pg_prove gets copies without it.
        let copy = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let expected = try PgTAPFixtures.expectedVerdicts(in: PgTAPFixtures.sharedDir)
        for e in expected {
            var keep = true
            let lines = try String(contentsOfFile: PgTAPFixtures.sharedDir + "/" + e.file, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).filter { l in
                    if l.hasPrefix("-- dbdev preamble: ") { keep = l.hasSuffix("end") }
                    return keep
                }
            try lines.joined(separator: "\n").write(toFile: copy + "/" + e.file, atomically: true, encoding: .utf8)
        }
        let (args, env) = try Self.psqlArguments(theirs.connectionString)

        let rlskit = try PgTAPRunner(connection: ours.connectionString).run(
            PgTAPRunner.discover([PgTAPFixtures.sharedDir]))
        for e in expected {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: pgProve)
            p.arguments = args + [e.file]
            p.currentDirectoryURL = URL(fileURLWithPath: copy)
            p.environment = env
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus == 0, e.passes, "pg_prove on \(e.file)")
            let mine = rlskit.files.first { ($0.file as NSString).lastPathComponent == e.file }
            XCTAssertEqual(mine?.passed, p.terminationStatus == 0, "rlskit vs pg_prove on \(e.file)")
            XCTAssertEqual(
                mine.map { String($0.summary.tests.count) }, Self.testsRun(text), "tests run in \(e.file)\n\(text)")
            XCTAssertEqual(
                PgTAPCountsTests.ours(rlskit)[e.file],
                PgTAPCountsTests.counts(text, passed: p.terminationStatus == 0), "planned, run, failed in \(e.file)")
        }
    }

    /// A suite with its own copy of some helpers: pg_prove with only pgTAP installed.
    func testPgProveAgreesOnASuiteWithItsOwnHelpers() throws {
        let pgProve = try PgTAPFixtures.requirePgProve()
        let theirs = try PgTAPFixtures.standInDatabase(extraSQL: "create extension pgtap with schema extensions;\n")
        defer { TestServer.drop(theirs.name) }
        try PostgresConnection(theirs.connectionString).query(
            "alter database \(SQL.ident(theirs.name)) set search_path = \"$user\", public, extensions")
        let ours = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(ours.name) }
        let rlskit = try PgTAPRunner(connection: ours.connectionString).run(
            PgTAPRunner.discover([PgTAPFixtures.ownHelpersDir]))
        let (args, env) = try Self.psqlArguments(theirs.connectionString)
        for e in try PgTAPFixtures.expectedVerdicts(in: PgTAPFixtures.ownHelpersDir) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: pgProve)
            p.arguments = args + [e.file]
            p.currentDirectoryURL = URL(fileURLWithPath: PgTAPFixtures.ownHelpersDir)
            p.environment = env
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus == 0, e.passes, "pg_prove on \(e.file)\n\(text)")
            let mine = rlskit.files.first { ($0.file as NSString).lastPathComponent == e.file }
            XCTAssertEqual(mine?.passed, p.terminationStatus == 0, "rlskit vs pg_prove on \(e.file)")
            XCTAssertEqual(
                PgTAPCountsTests.ours(rlskit)[e.file],
                PgTAPCountsTests.counts(text, passed: p.terminationStatus == 0), "planned, run, failed in \(e.file)")
        }
    }

    /// N from pg_prove's summary line "Files=1, Tests=N, …".
    static func testsRun(_ output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("Files=") }
            .flatMap { $0.split(separator: ",").dropFirst().first }
            .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "Tests=", with: "") }
    }

    /// pg_prove's connection flags and environment for a database.
    static func psqlArguments(_ c: ConnectionString) throws -> (args: [String], env: [String: String]) {
        let opts = try c.options()
        var args: [String] = []
        for (flag, key) in [("-h", "host"), ("-p", "port"), ("-U", "user"), ("-d", "dbname")] {
            if let v = opts[key], !v.isEmpty { args += [flag, v] }
        }
        var env = ProcessInfo.processInfo.environment
        if let pw = opts["password"] { env["PGPASSWORD"] = pw }
        return (args, env)
    }
}
