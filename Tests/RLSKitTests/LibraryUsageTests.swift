import Foundation
import Postgres
import RLSKit  // not @testable: only what a library user can reach
import TestSupport
import XCTest

/// docs/library.md's "rlskit as a Swift library" example, kept compiling and passing.
final class LibraryUsageTests: XCTestCase {
    /// The example's paths are relative to the project: run from the repository root.
    func inRepository<T>(_ body: () throws -> T) throws -> T {
        let old = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(Provisioned.repositoryRoot)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(old) }
        return try body()
    }

    func testPolicies() throws {
        try inRepository {
            try withLocalCluster { cluster in  // throwaway server, always removed
                let db = cluster.connectionString
                _ = try Migrator.run(.directory("sql/migrations"), on: db)  // stand-in + migrations

                let report = try Harness.run(try HarnessLoader.load(["sql/tests"]), on: db)
                XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))

                let audit = AuditReport(result: try Auditor.run(on: db))
                XCTAssertFalse(audit.fails(at: .warn), audit.text(color: false))
            }
        }
    }

    func testWhatCheckRuns() throws {
        try inRepository {
            try withLocalCluster { cluster in
                let input = ProjectCheck.Input(
                    migrations: .directory("sql/migrations"), tests: try TestSuite.load(["sql/tests"]))
                let check = try ProjectCheck.run(
                    input, on: .init(connection: cluster.connectionString, isThrowaway: true))
                XCTAssertTrue(check.passed, check.json())
                XCTAssertEqual(check.phases.map(\.name), ["database", "apply", "test", "audit", "attack"])
                XCTAssertGreaterThan(check.tests.count(.passed), 50)
            }
        }
    }

    /// docs/library.md shows the same code as this file.
    func testREADMEShowsThisCode() throws {
        let example = try DocPage.block(after: "# rlskit as a Swift library", in: "docs/library.md")
        for line in [
            "_ = try Migrator.run(.directory(\"sql/migrations\"), on: db)",
            "let audit = AuditReport(result: try Auditor.run(on: db))",
            "let check = try ProjectCheck.run(input, on: .init(connection: cluster.connectionString, isThrowaway: true))",
        ] {
            XCTAssertTrue(example.contains(line), line)
        }
    }
}

/// docs/library.md's list of RLSKit's public types is the code's list: nothing public that a
/// library user was not told about, nothing listed that is gone.
final class PublicAPITests: XCTestCase {
    func testREADMEListsExactlyThePublicTypes() throws {
        let root = Provisioned.repositoryRoot
        let section = try DocPage.section("## The public API of `RLSKit`", in: "docs/library.md")
        let listed = Set(matches(#"`([A-Z][A-Za-z0-9]+)`"#, in: section))
        var declared = Set<String>()
        let dir = root + "/Sources/RLSKit"
        for path in FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []
        where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: dir + "/" + path, encoding: .utf8)
            declared.formUnion(
                matches(#"(?m)^public (?:final class|struct|enum|protocol|typealias|class) ([A-Za-z0-9]+)"#, in: text))
        }
        XCTAssertEqual(declared.subtracting(listed).sorted(), [], "public but not in docs/library.md's list")
        XCTAssertEqual(listed.subtracting(declared).sorted(), [], "in docs/library.md's list but not public")
    }

    func matches(_ pattern: String, in text: String) -> [String] {
        let re = try! NSRegularExpression(pattern: pattern)
        return re.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
