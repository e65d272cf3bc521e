import Foundation
import Postgres
import TestSupport
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

final class CheckCommandTests: XCTestCase {
    func testCheckRunsEveryPhaseAndWritesJUnit() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(
            ["check", "--builtin", "--format", "junit", "--output", tmp + "/check.xml"], environment: ["TMPDIR": tmp],
            directory: tmp
        )
        XCTAssertEqual(r.code, 0, r.output)
        for phase in ["✓ database", "✓ apply", "✓ test"] { XCTAssertTrue(r.stdout.contains(phase), r.stdout) }
        XCTAssertTrue(r.stdout.contains("built-in schema"))
        let doc = try XMLDocument(contentsOf: URL(fileURLWithPath: tmp + "/check.xml"))
        XCTAssertGreaterThan(try doc.nodes(forXPath: "//testcase").count, 50)
        XCTAssertEqual(try doc.nodes(forXPath: "//failure").count, 0)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: tmp).filter { $0.hasPrefix("rlskit-pg") }, [])
    }

    /// A schema whose update policy lets anyone change any profile fails check with exit 1,
    /// naming table, actor and operation.
    func testBrokenPolicyFailsTheCheck() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let root = Provisioned.repositoryRoot
        _ = try OurSchema.migrationsWithUpdateLeak(in: tmp, policy: "anyone updates")
        let r = try CLI.run(
            [
                "check", "--dir", tmp + "/m", "--tests", root + "/sql/tests", "--format", "json", "--output",
                tmp + "/r.json",
            ],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("✗ test"), r.stdout)
        XCTAssertTrue(r.stdout.contains("public.profiles"), r.stdout)
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp + "/r.json")))
            as! [String: Any]
        XCTAssertEqual(json["passed"] as? Bool, false)
        let failed = ((json["tests"] as! [String: Any])["outcomes"] as! [[String: Any]]).filter {
            $0["status"] as? String == "failed"
        }
        XCTAssertTrue(
            failed.contains {
                ($0["suite"] as? String) == "public.profiles"
                    && ($0["name"] as? String ?? "").lowercased().contains("update")
            }, "\(failed)")
    }

    /// The tutorial's storage cleanup as written: check fails on the audit and SARIF lists why.
    /// Its ERRORs have no exploit yet (storage, a function that reaches the network), so they
    /// are WARN until proven: the run fails at `--fail-on warn`.
    func testSeedAsWrittenFailsTheAudit() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Provisioned.repositoryRoot + "/Tests/Fixtures/seed000-as-written.sql",
            toPath: tmp + "/m/0001_seed.sql")
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--fail-on", "warn", "--format", "sarif", "--output", tmp + "/r.sarif"],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("✗ audit"), r.stdout)
        XCTAssertFalse(r.output.contains("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ"), "the key must be redacted")
        let sarif =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp + "/r.sarif")))
            as! [String: Any]
        let results = ((sarif["runs"] as! [[String: Any]])[0]["results"] as! [[String: Any]]).compactMap {
            $0["ruleId"] as? String
        }
        for rule in [
            "anon_security_definer_function_executable", "secret_in_catalog", "function_search_path_mutable",
            "storage_write_without_owner_check",
        ] {
            XCTAssertTrue(results.contains { $0.contains(rule) }, "\(rule) missing from \(Set(results))")
        }
    }
}
