import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// pg_prove and rlskit on the repo's fixture suites: per file the same verdict and the same
/// numbers of tests planned, run and failed.
final class PgTAPCountsTests: XCTestCase {
    /// What pg_prove (TAP::Parser) reported of one file.
    struct Counts: Equatable, CustomStringConvertible {
        var passed: Bool
        var planned: Int?
        var run: Int
        var failed: Int
        var description: String {
            "passed \(passed), planned \(planned.map(String.init) ?? "none"), run \(run), failed \(failed)"
        }
    }

    /// Runs pg_prove on each file in turn (each its own psql session, as `pg_prove dir/` does).
    static func pgProve(_ files: [String], in dir: String, on db: ConnectionString) throws -> [String: Counts] {
        let pgProve = try PgTAPFixtures.requirePgProve()
        let (args, env) = try PgTAPComparisonTests.psqlArguments(db)
        var out: [String: Counts] = [:]
        for file in files {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: pgProve)
            p.arguments = args + [file]
            p.currentDirectoryURL = URL(fileURLWithPath: dir)
            p.environment = env
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            out[file] = counts(text, passed: p.terminationStatus == 0)
        }
        return out
    }

    /// Reads "Files=1, Tests=N", "(Wstat: … Tests: N Failed: M)" and "You planned X tests".
    static func counts(_ text: String, passed: Bool) -> Counts {
        func number(after marker: String) -> Int? {
            guard let r = text.range(of: marker) else { return nil }
            return Int(text[r.upperBound...].prefix { $0.isNumber })
        }
        let run = number(after: "Files=1, Tests=") ?? 0
        var planned: Int? = number(after: "You planned ") ?? run
        if text.contains("No plan found") { planned = nil }
        return Counts(passed: passed, planned: planned, run: run, failed: number(after: " Failed: ") ?? 0)
    }

    static func ours(_ r: PgTAPRunResult) -> [String: Counts] {
        Dictionary(
            uniqueKeysWithValues: r.files.map { f in
                let planned = f.summary.skipAll != nil ? 0 : f.summary.planned
                return (
                    (f.file as NSString).lastPathComponent,
                    Counts(
                        passed: f.passed, planned: planned, run: f.summary.tests.count,
                        failed: f.summary.failedCount)
                )
            })
    }

    func compare(_ dir: String, ours: PgTAPRunResult, theirs: [String: Counts]) throws {
        let mine = Self.ours(ours)
        let expected = try PgTAPFixtures.expectedVerdicts(in: dir)
        XCTAssertFalse(expected.isEmpty)
        for e in expected {
            XCTAssertEqual(theirs[e.file]?.passed, e.passes, "pg_prove on \(e.file)")
            var want = theirs[e.file]
            // A file with a meta-command psql rejects is refused whole (exit 2), where psql runs up to it.
            if ours.files.contains(where: { $0.file.hasSuffix("/" + e.file) && !$0.malformed.isEmpty }) {
                want?.planned = nil
            }
            XCTAssertEqual(mine[e.file], want, "rlskit vs pg_prove on \(e.file)")
        }
    }

    func testCountsMatchPgProveOnTheStandaloneFixtures() throws {
        let theirsDB = try PgTAPFixtures.standInDatabase(pgtap: true, extraSQL: SupabaseTestHelpers.installSQL())
        defer { TestServer.drop(theirsDB.name) }
        let files = try PgTAPFixtures.expectedVerdicts().map(\.file)
        let theirs = try Self.pgProve(files, in: PgTAPFixtures.dir, on: theirsDB.connectionString)
        let oursDB = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(oursDB.name) }
        let r = try PgTAPRunner(connection: oursDB.connectionString).run(
            PgTAPRunner.discover(files.map { PgTAPFixtures.dir + "/" + $0 }))
        try compare(PgTAPFixtures.dir, ours: r, theirs: theirs)
    }

    func testCountsMatchPgProveWhenASetupFileFails() throws {
        let dir = PgTAPFixtures.root + "/Tests/Fixtures/pgtap-setup-fails"
        let theirsDB = try PgTAPFixtures.standInDatabase(pgtap: true)
        defer { TestServer.drop(theirsDB.name) }
        let files = try PgTAPFixtures.expectedVerdicts(in: dir).map(\.file)
        let theirs = try Self.pgProve(files, in: dir, on: theirsDB.connectionString)
        let oursDB = try PgTAPFixtures.standInDatabase()
        defer { TestServer.drop(oursDB.name) }
        let r = try PgTAPRunner(connection: oursDB.connectionString).run(PgTAPRunner.discover([dir]))
        try compare(dir, ours: r, theirs: theirs)
    }
}
