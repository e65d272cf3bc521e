import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A schema plus a breakage on a stand-in database, tested with an access file.
enum IntentFixture {
    static func run(
        _ sql: String, access: String, path: String = "intent.rls", options: HarnessOptions = HarnessOptions()
    ) throws -> TestReport {
        let db = try StandIn.makeDatabase(prefix: "intent")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(sql)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: path)]
        return try Harness.run(input, options: options, on: db.connectionString)
    }

    struct Bug {
        let what: String
        let sql: String
        /// "suite: check name" of each check that must fail.
        let fails: [String]
    }

    /// The correct schema passes with every named check present; each bug fails where it says.
    static func assertCatches(
        schema: String, access: String, present: [String], bugs: [Bug], options: HarnessOptions = HarnessOptions(),
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let report = try run(schema, access: access, options: options)
        let failures = report.outcomes.filter(\.isFailure)
        XCTAssertTrue(
            report.passed, failures.map { "\($0.suite): \($0.name): \($0.message ?? "")" }.joined(separator: "\n"),
            file: file, line: line)
        let names = Set(report.outcomes.map { "\($0.suite): \($0.name)" })
        for n in present {
            XCTAssertTrue(names.contains(n), "missing check \(n) in \(names.sorted())", file: file, line: line)
        }
        for b in bugs {
            let report = try run(schema + "\n" + b.sql, access: access, options: options)
            let failed = report.outcomes.filter(\.isFailure)
            XCTAssertFalse(report.passed, "\(b.what): not caught", file: file, line: line)
            for name in b.fails {
                guard let o = failed.first(where: { "\($0.suite): \($0.name)" == name }) else {
                    XCTFail(
                        "\(b.what): expected '\(name)' to fail; failures: \(failed.map { "\($0.suite): \($0.name)" })",
                        file: file, line: line)
                    continue
                }
                XCTAssertTrue(o.message?.hasPrefix(o.suite + " · ") == true, o.message ?? "", file: file, line: line)
                XCTAssertTrue(o.message?.contains("as \(o.actor!)") == true, o.message ?? "", file: file, line: line)
                // The policies that decided it are named (a denial by privilege names none).
                if !(o.got ?? "").contains("denied by privilege") {
                    XCTAssertFalse(o.policies?.isEmpty ?? true, "\(name): no policy named: \(o.message ?? "")")
                }
            }
        }
    }
}
