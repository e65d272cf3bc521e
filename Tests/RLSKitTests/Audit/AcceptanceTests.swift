import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// The acceptance: the tutorial SQL as written is caught; our own schema is clean.
final class AuditAcceptanceTests: XCTestCase {
    func testSeed000AsWrittenIsCaught() throws {
        let db = try StandIn.makeDatabase(prefix: "seed")
        defer { TestServer.drop(db.name) }
        try StandIn.apply(file: "Tests/Fixtures/seed000-as-written.sql", db.conn)
        let result = try Auditor.run(db.conn)
        XCTAssertEqual(result.failedLints, [:])
        let f = result.findings
        func has(_ lint: String, _ name: String, member: String? = nil) -> Bool {
            f.contains { $0.lint == lint && $0.object.name == name && (member == nil || $0.object.member == member) }
        }
        let del = "delete_storage_object(text, text)"
        XCTAssertTrue(has("anon_security_definer_function_executable", del), "\(f.map(\.detail))")
        XCTAssertTrue(has("secret_in_catalog", del))
        XCTAssertTrue(has("function_search_path_mutable", del))
        XCTAssertTrue(has("storage_write_without_owner_check", "objects", member: "Anyone can upload an avatar."))
        XCTAssertTrue(has("with_check_weaker_than_using", "objects", member: "Anyone can update their own avatar."))
        // The key itself never appears in any finding.
        let key = "rJr4isAmE3EQYTGnVFpbjnF9YQ6vN2DizuIwo0LFGEs"
        for finding in f { XCTAssertFalse("\(finding)".contains(key)) }
        // An UPDATE policy without WITH CHECK is safe; a public SELECT is intended.
        XCTAssertFalse(f.contains { $0.object.member == "Users can update own profile." && $0.level >= .warn })
        XCTAssertFalse(f.contains { $0.object.member == "Public profiles are viewable by everyone." })
    }

    func testOurSchemaHasNoErrorOrWarning() throws {
        let db = try StandIn.makeDatabase(prefix: "ours")
        defer { TestServer.drop(db.name) }
        try StandIn.installMigrations(db.conn)
        let result = try Auditor.run(db.conn)
        XCTAssertEqual(result.failedLints, [:])
        XCTAssertEqual(result.findings.filter { $0.level >= .warn }.map(\.detail), [])
        XCTAssertEqual(result.exposed.names, ["public"])
    }
}

final class AuditHelperConnectionTests: XCTestCase {
    /// The two-connection path gives exactly the findings of the one-connection path.
    func testHelperConnectionGivesTheSameFindings() throws {
        let db = try StandIn.makeDatabase(prefix: "helper")
        defer { TestServer.drop(db.name) }
        try StandIn.apply(file: "Tests/Fixtures/seed000-as-written.sql", db.conn)
        let one = try Auditor.run(db.conn)
        let two = try Auditor.run(db.conn, helper: db.connectionString, helperThreshold: 0)
        XCTAssertEqual(one.findings, two.findings)
        XCTAssertEqual(two.failedLints, [:])
        XCTAssertFalse(db.conn.inTransaction)
    }
}
