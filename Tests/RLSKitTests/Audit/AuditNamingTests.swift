import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Findings name objects as the lock file does (quoted where needed, the schema once), and an
/// audit of schemas that do not exist is a configuration error, not a pass.
final class AuditNamingTests: XCTestCase {
    func testAuditQuotesNamesAndDoesNotDoubleTheSchema() throws {
        let db = try OurSchema.makeDatabase()
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        try conn.query("BEGIN")
        defer { _ = try? conn.query("ROLLBACK") }
        try conn.query("create table public.\"Bad Name\" (id int)")
        try conn.query("grant select on public.\"Bad Name\" to anon")
        try conn.query("comment on table public.posts is 'worker key: sb_secret_AbCdEfGhIjKlMnOpQrStUv'")
        let r = try Auditor.run(conn)
        let rls = try XCTUnwrap(
            r.findings.first { $0.lint == "rls_disabled_in_public" && $0.object.name == "Bad Name" })
        XCTAssertTrue(rls.detail.hasPrefix("table public.\"Bad Name\" "), rls.detail)
        XCTAssertEqual(rls.object.display, "table public.\"Bad Name\"")
        let secret = try XCTUnwrap(r.findings.first { $0.lint == "secret_in_catalog" })
        XCTAssertEqual(secret.object.display, "comment on table public.posts")
        XCTAssertFalse(secret.object.qualifiedName.contains("public.public"), secret.object.qualifiedName)
        XCTAssertFalse(secret.detail.contains("public.public"), secret.detail)
    }

    func testAuditOfOnlyMissingSchemasIsAConfigurationError() throws {
        let db = try StandIn.makeDatabase(prefix: "nosuch")
        defer { TestServer.drop(db.name) }
        XCTAssertThrowsError(try Auditor.run(db.conn, exposedSchemas: ["nosuch"])) { e in
            XCTAssertTrue(e is ConfigurationError, "\(e)")
            XCTAssertTrue("\(e)".contains("nosuch") && !"\(e)".contains("\n"), "\(e)")
        }
        let partly = try Auditor.run(db.conn, exposedSchemas: ["nosuch", "public"])
        XCTAssertEqual(partly.missingSchemas, ["nosuch"])
        try db.conn.query(
            "alter role authenticator in database \(try db.conn.escapeIdentifier(db.name)) set pgrst.db_schemas = 'api_v1, api_v2'"
        )
        XCTAssertThrowsError(try Auditor.run(db.conn)) { e in
            XCTAssertTrue(e is ConfigurationError, "\(e)")
            XCTAssertTrue("\(e)".contains("api_v1") && "\(e)".contains("pgrst.db_schemas"), "\(e)")
        }
    }
}
