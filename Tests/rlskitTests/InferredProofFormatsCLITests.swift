import Foundation
import Postgres
import RLSKit
import TestSupport
import XCTest

/// `check` without access files: the inferred attack's proofs name the rows' keys in every
/// format, and the SARIF log has a rule for each result.
final class InferredProofFormatsCLITests: XCTestCase {
    func testKeysInEveryFormatAndARuleForEachSARIFResult() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try InferredCLITests.schema(fixed: false).write(
            toFile: tmp + "/m/0001_app.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            [
                "check", "--dir", tmp + "/m", "--allow-empty", "--json", tmp + "/r.json", "--sarif", tmp + "/r.sarif",
                "--junit", tmp + "/r.xml", "--html", tmp + "/r.html",
            ], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        // The insert into another workspace names the workspace it wrote into.
        XCTAssertTrue(r.stdout.contains("POST /rest/v1/docs wrote 1 row (workspace_id="), r.stdout)
        for f in ["r.json", "r.sarif", "r.xml", "r.html"] {
            let text = try String(contentsOfFile: tmp + "/" + f, encoding: .utf8)
            XCTAssertTrue(text.contains("workspace_id="), f)
        }
        let log = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp + "/r.sarif")))
                as? [String: Any])
        let run = try XCTUnwrap((log["runs"] as? [[String: Any]])?.first)
        let driver = try XCTUnwrap((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try XCTUnwrap(driver["rules"] as? [[String: Any]])
        let ids = rules.compactMap { $0["id"] as? String }
        let results = try XCTUnwrap(run["results"] as? [[String: Any]])
        XCTAssertTrue(results.contains { $0["ruleId"] as? String == "inferred_intent_violated" })
        for res in results {
            let id = res["ruleId"] as? String ?? ""
            let i = try XCTUnwrap(res["ruleIndex"] as? Int, id)
            XCTAssertEqual(ids[i], id)
        }
        let inferred = try XCTUnwrap(rules.first { $0["id"] as? String == "inferred_intent_violated" })
        XCTAssertNotNil((inferred["fullDescription"] as? [String: Any])?["text"] as? String)
        XCTAssertEqual((inferred["defaultConfiguration"] as? [String: Any])?["level"] as? String, "error")
    }
}
