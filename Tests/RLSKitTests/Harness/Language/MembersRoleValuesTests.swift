import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A members block's `roles` values must be labels of the role column's enum: otherwise the run
/// stops before any test with the line, instead of every group table failing on the seed.
final class MembersRoleValuesTests: XCTestCase {
    func testAValueTheEnumLacksStopsTheRunWithItsLine() throws {
        let access = TeamFixture.access.replacingOccurrences(
            of: "roles owner member", with: "roles owner manager member")
        XCTAssertThrowsError(try TeamFixture.run(access: access)) { e in
            XCTAssertEqual(
                "\(e)", "team.rls:5: 'manager' is not a value of public.team_role (owner, member): fix the 'roles' line"
            )
            XCTAssertTrue(e is InputError, "\(type(of: e))")
        }
    }

    /// A domain over the enum is checked the same way; a text role column is not an enum, so any
    /// value goes (its table's constraints decide).
    func testDomainsAreFollowedAndTextIsLeftAlone() throws {
        let db = try StandIn.makeDatabase(prefix: "roles")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(
            """
            create type public.level as enum ('lead', 'crew');
            create domain public.level_d as public.level;
            create table public.crews (team uuid, member uuid, lvl public.level_d, label text);
            """)
        let found = try MembersRoleValues.labels(db.conn, table: "public.crews", column: "lvl")
        XCTAssertEqual(found?.0, "public.level")
        XCTAssertEqual(found?.1, ["lead", "crew"])
        XCTAssertNil(try MembersRoleValues.labels(db.conn, table: "public.crews", column: "label"))
    }
}
