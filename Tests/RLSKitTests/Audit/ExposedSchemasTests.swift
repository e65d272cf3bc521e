import Postgres
import TestSupport
import XCTest

@testable import RLSKit

final class ExposedSchemasTests: XCTestCase {
    func testReadsAuthenticatorSettingForThisDatabase() throws {
        let db = try StandIn.makeDatabase(prefix: "exp")
        defer { TestServer.drop(db.name) }
        XCTAssertEqual(try ExposedSchemas.detect(db.conn).names, ["public"])
        try db.conn.query("create schema api")
        try db.conn.query(
            "alter role authenticator in database \(try db.conn.escapeIdentifier(db.name)) set pgrst.db_schemas = 'api, public'"
        )
        let e = try ExposedSchemas.detect(db.conn)
        XCTAssertEqual(e.names, ["api", "public"])
        XCTAssertTrue(e.source.contains("authenticator"))
        // A table without RLS in the newly exposed schema is now a finding.
        try db.conn.query("create table api.items (id int)")
        let r = try Auditor.run(db.conn, lints: [LintRegistry.named("rls_disabled_in_public")!])
        XCTAssertEqual(r.findings.map(\.object.qualifiedName), ["api.items"])
        let overridden = try Auditor.run(
            db.conn, lints: [LintRegistry.named("rls_disabled_in_public")!], exposedSchemas: ["public"])
        XCTAssertEqual(overridden.findings.count, 0)
    }
}
