import Foundation
import Postgres
import TestSupport
import XCTest

final class AuditCLITests: XCTestCase {
    nonisolated(unsafe) static var seedURL: String?
    nonisolated(unsafe) static var oursURL: String?
    nonisolated(unsafe) static var names: [String] = []

    /// Two databases shared by the tests: the tutorial SQL as written, and our schema.
    override class func setUp() {
        super.setUp()
        do {
            let seed = try StandIn.makeDatabase(prefix: "cliseed")
            try StandIn.apply(file: "Tests/Fixtures/seed000-as-written.sql", seed.conn)
            let ours = try StandIn.makeDatabase(prefix: "cliours")
            try StandIn.installMigrations(ours.conn)
            seedURL = seed.connectionString.raw
            oursURL = ours.connectionString.raw
            names = [seed.name, ours.name]
        } catch {
            XCTFail("setup: \(error)")
        }
    }

    override class func tearDown() {
        for n in names { TestServer.drop(n) }
        super.tearDown()
    }

    var seed: String { Self.seedURL! }
    var ours: String { Self.oursURL! }

    func testTextReportAndExitCodes() throws {
        let r = try CLI.run(["audit", "--database-url", seed])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("exposed schemas checked: public"), r.stdout)
        XCTAssertTrue(r.stdout.contains("ERROR ("), r.stdout)
        XCTAssertTrue(r.stdout.contains("WARN ("), r.stdout)
        XCTAssertFalse(r.stdout.contains("\u{1B}["), "no colour when not a terminal")
        XCTAssertFalse(
            r.stdout.contains("rJr4isAmE3EQYTGnVFpbjnF9YQ6vN2DizuIwo0LFGEs"), "the key itself is never printed")
        XCTAssertEqual(r.stderr, "")

        let clean = try CLI.run(["audit", "--database-url", ours])
        XCTAssertEqual(clean.code, 0, clean.output)
        XCTAssertEqual(try CLI.run(["audit", "--database-url", ours, "--fail-on", "warn"]).code, 0)
        XCTAssertEqual(try CLI.run(["audit", "--database-url", seed, "--fail-on", "info"]).code, 1)
        let bad = try CLI.run(["audit", "--database-url", seed, "--fail-on", "fatal"])
        XCTAssertEqual(bad.code, 2)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
    }

    func testJSONReport() throws {
        let r = try CLI.run(["audit", "--database-url", seed, "--format", "json"])
        XCTAssertEqual(r.code, 1)
        let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(obj["exposed_schemas"] as? [String], ["public"])
        let findings = try XCTUnwrap(obj["findings"] as? [[String: Any]])
        XCTAssertFalse(findings.isEmpty)
        for f in findings {
            for key in [
                "name", "id", "level", "categories", "object", "detail", "remediation", "metadata", "fingerprint",
            ] {
                XCTAssertNotNil(f[key], key)
            }
        }
        XCTAssertTrue(findings.contains { $0["name"] as? String == "secret_in_catalog" })
    }

    func testSARIFShape() throws {
        let r = try CLI.run(["audit", "--database-url", seed, "--format", "sarif"])
        XCTAssertEqual(r.code, 1)
        let log = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "2.1.0")
        XCTAssertNotNil(log["$schema"] as? String)
        let run = try XCTUnwrap((log["runs"] as? [[String: Any]])?.first)
        let driver = try XCTUnwrap((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try XCTUnwrap(driver["rules"] as? [[String: Any]])
        let ruleIDs = Set(rules.compactMap { $0["id"] as? String })
        let results = try XCTUnwrap(run["results"] as? [[String: Any]])
        XCTAssertFalse(results.isEmpty)
        for res in results {
            XCTAssertTrue(ruleIDs.contains(res["ruleId"] as? String ?? ""))
            XCTAssertTrue(["error", "warning", "note"].contains(res["level"] as? String ?? ""))
            XCTAssertNotNil((res["message"] as? [String: Any])?["text"] as? String)
            let loc = try XCTUnwrap(
                ((res["locations"] as? [[String: Any]])?.first?["logicalLocations"] as? [[String: Any]])?.first)
            XCTAssertTrue((loc["fullyQualifiedName"] as? String ?? "").contains("."))
            XCTAssertNotNil(loc["kind"] as? String)
            XCTAssertNotNil((res["partialFingerprints"] as? [String: String])?["rlskit/v1"])
        }
    }

    func testGitHubAnnotations() throws {
        let r = try CLI.run(["audit", "--database-url", seed, "--format", "github"])
        XCTAssertEqual(r.code, 1)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("::error title=rlskit storage_write_without_owner_check::") })
        XCTAssertTrue(lines.contains { $0.hasPrefix("::warning title=rlskit function_search_path_mutable::") })
    }

    func testBaselineSuppressesAndValidates() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = try CLI.run(["audit", "--database-url", seed, "--format", "json"])
        let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let errors = (obj["findings"] as? [[String: Any]] ?? []).filter { $0["level"] as? String == "error" }
        let file = dir + "/baseline.txt"
        let lines = ["# accepted findings"] + errors.map { "\($0["fingerprint"]!) # tutorial fixture, kept on purpose" }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["audit", "--database-url", seed, "--baseline", file])
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("suppressed by the baseline"), r.stdout)
        XCTAssertEqual(try CLI.run(["audit", "--database-url", seed, "--baseline", file, "--fail-on", "warn"]).code, 1)

        try "# ok\n\nnot-a-fingerprint # x\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["audit", "--database-url", seed, "--baseline", file])
        XCTAssertEqual(bad.code, 2)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("baseline.txt:3:"), bad.stderr)

        try "0123456789abcdef\n".write(toFile: file, atomically: true, encoding: .utf8)
        let noReason = try CLI.run(["audit", "--database-url", seed, "--baseline", file])
        XCTAssertEqual(noReason.code, 2)
        XCTAssertTrue(
            noReason.stderr.contains("baseline.txt:1:") && noReason.stderr.contains("no reason"), noReason.stderr)
    }

    func testExplainNeedsNoDatabase() throws {
        let r = try CLI.run(["audit", "--explain", "with_check_weaker_than_using"])
        XCTAssertEqual(r.code, 0)
        XCTAssertTrue(r.stdout.contains("with_check_weaker_than_using (1003)"))
        XCTAssertTrue(r.stdout.contains("example 1 triggers on:"))
        XCTAssertTrue(r.stdout.contains("does not trigger on:"))
        XCTAssertEqual(try CLI.run(["audit", "--explain", "0013"]).code, 0)
        let unknown = try CLI.run(["audit", "--explain", "nope"])
        XCTAssertEqual(unknown.code, 2)
        XCTAssertEqual(unknown.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(try CLI.run(["audit", "--list"]).stdout.split(separator: "\n").count, 31)
    }

    func testOutputFile() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ok = try CLI.run(["audit", "--database-url", seed, "--format", "sarif", "--output", dir + "/out.sarif"])
        XCTAssertEqual(ok.code, 1)
        XCTAssertTrue(ok.stdout.contains("report written to"))
        XCTAssertNotNil(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.sarif"))))
        let bad = try CLI.run(["audit", "--database-url", seed, "--output", dir + "/missing/dir/out.txt"])
        XCTAssertEqual(bad.code, 2)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertEqual(bad.stdout, "")
    }

    func testNeedsADatabaseAndOverridesSchemas() throws {
        let none = try CLI.run(["audit"])
        XCTAssertEqual(none.code, 2)
        XCTAssertTrue(none.stderr.contains("needs a database"))
        let r = try CLI.run(["audit", "--database-url", seed, "--exposed-schemas", "api, public"])
        XCTAssertTrue(r.stdout.contains("exposed schemas checked: api, public (--exposed-schemas)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("exposed schema api not found"), r.stdout)
    }

    func testUnreachableServerExits3WithoutPassword() throws {
        let secret = "pw-\(UUID().uuidString)"
        for command in ["audit", "snapshot"] {
            let r = try CLI.run([
                command, "--database-url", "postgresql://alice:\(secret)@127.0.0.1:1/app?connect_timeout=3",
            ])
            XCTAssertEqual(r.code, 3, r.output)
            XCTAssertFalse(r.output.contains(secret))
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }

    func testPrintQueriesRunsInPsqlShape() throws {
        let r = try CLI.run(["audit", "--print-queries"])
        XCTAssertEqual(r.code, 0)
        XCTAssertTrue(r.stdout.hasPrefix("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"))
        XCTAssertFalse(r.stdout.contains("$1"))
        let conn = try PostgresConnection(ConnectionString(seed))
        _ = try conn.runScript(r.stdout)
    }
}
