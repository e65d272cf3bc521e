import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// The prover on every ERROR lint's own triggering examples, as written and with the grants
/// older projects got automatically: how many ERRORs are proven, how many lowered, and why.
/// Every proven finding keeps ERROR; every other one is WARN with a reason; nothing is left.
final class ProverExampleTests: XCTestCase {
    func testLintExamplesProvenOrLoweredWithAReason() throws {
        var table: [String] = []
        for automatic in [false, true] {
            var proven: [String: Int] = [:]
            var lowered: [String: Int] = [:]
            var reasons: [String: Set<String>] = [:]
            for lint in LintRegistry.all where lint.level == .error {
                for example in lint.triggering {
                    let db = try StandIn.makeDatabase(prefix: "proofex")
                    defer {
                        db.conn.close()
                        TestServer.drop(db.name)
                    }
                    _ = try db.conn.runScript(example.sql)
                    if automatic {
                        _ = try db.conn.runScript(
                            "grant all on all tables in schema public to anon, authenticated, service_role;\n"
                                + "grant all on all sequences in schema public to anon, authenticated, service_role;")
                    }
                    let findings = try Auditor.run(db.conn, lints: [lint], exposedSchemas: ["public"]).findings
                        .filter { $0.level == .error }
                    let result = try Prover.prove(findings, on: db.connectionString, ownsDatabase: true)
                    for f in result.findings {
                        let p = try XCTUnwrap(f.proof, f.detail)
                        if p.outcome == .proven {
                            XCTAssertEqual(f.level, .error)
                            XCTAssertGreaterThan(p.rows, 0, p.line)
                            proven[lint.name, default: 0] += 1
                        } else {
                            XCTAssertEqual(f.level, .warn)
                            XCTAssertFalse(p.reason.isEmpty)
                            lowered[lint.name, default: 0] += 1
                            reasons[lint.name, default: []].insert(p.reason)
                        }
                    }
                    XCTAssertEqual(result.sequences.filter { !$0.reset }, [])
                }
            }
            let names = Set(proven.keys).union(lowered.keys).sorted()
            table.append(automatic ? "with automatic grants:" : "as written:")
            for n in names {
                let why = (reasons[n] ?? []).sorted().first.map { " — e.g. \($0)" } ?? ""
                table.append("  \(n): \(proven[n] ?? 0) proven, \(lowered[n] ?? 0) lowered\(why)")
            }
            table.append(
                "  total: \(proven.values.reduce(0, +)) proven, \(lowered.values.reduce(0, +)) lowered")
        }
        print(table.joined(separator: "\n"))
    }
}
