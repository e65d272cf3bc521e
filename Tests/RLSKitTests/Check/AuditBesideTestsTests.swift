import Foundation
import Postgres
import XCTest

@_spi(CLI) @testable import RLSKit

/// The audit runs beside the tests on a connection that waits for no lock: its settings are
/// the target's own plus a short lock_timeout, and a lock a test holds makes it give up (the
/// check then audits again after the tests) instead of waiting.
final class AuditBesideTestsTests: XCTestCase {
    func testTheAuditsConnectionKeepsItsOptionsAndWaitsForNoLock() throws {
        let cluster = try LocalCluster(options: Sandbox.options(LocalCluster.Options()))
        defer { cluster.stop() }
        let admin = cluster.adminConnectionString
        let beside = try XCTUnwrap(ProjectCheck.noLockWaits(admin))
        let conn = try PostgresConnection(beside)
        defer { conn.close() }
        let row = try conn.query(
            "select current_setting('lock_timeout') as l, current_setting('search_path') as p, current_user::text as u"
        ).rows[0]
        XCTAssertEqual(try row.decode("l") as String, "100ms")
        let plain = try PostgresConnection(admin)
        defer { plain.close() }
        let reference = try plain.query(
            "select current_setting('lock_timeout') as l, current_setting('search_path') as p, current_user::text as u"
        ).rows[0]
        XCTAssertEqual(try row.decode("p") as String, try reference.decode("p") as String)
        XCTAssertEqual(try row.decode("u") as String, try reference.decode("u") as String)
        XCTAssertEqual(try reference.decode("l") as String, "0", "the check's other connections still wait")

        // A test's lock: the audit's query fails at once instead of waiting for the rollback.
        try plain.query("create table public.locked (x int)")
        try plain.query("begin")
        try plain.query("lock table public.locked in access exclusive mode")
        let started = Date()
        XCTAssertThrowsError(try conn.query("select count(*) from public.locked"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        try plain.query("rollback")
        XCTAssertNoThrow(try conn.query("select count(*) from public.locked"))
    }
}
