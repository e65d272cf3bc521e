import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Access through team membership: the correct schema passes; each bug class a team app
/// invites fails at the check naming its table, actor and operation.
final class GroupMatrixTests: XCTestCase {
    func testCorrectTeamSchemaPasses() throws {
        let report = try TeamFixture.run()
        let failures = report.outcomes.filter(\.isFailure)
        XCTAssertTrue(
            report.passed, failures.map { "\($0.suite): \($0.name): \($0.message ?? "")" }.joined(separator: "\n"))
        let names = Set(report.outcomes.map { "\($0.suite): \($0.name)" })
        for n in [
            "public.projects: G2 owner reads G1's row", "public.projects: G1 owner moves G1's row into G2",
            "public.team_members: outsider joins G1 uninvited", "public.team_members: G1 member promotes self to owner",
            "public.team_members: G1 owner removes G1 member", "public.team_members: G1 member leaves G1",
            "public.teams: outsider creates a group", "public.teams: G1 member deletes G1's row",
        ] {
            XCTAssertTrue(names.contains(n), "missing check \(n)")
        }
        XCTAssertGreaterThan(report.outcomes.count, 50)
    }

    struct Bug {
        let what: String
        let sql: String
        let fails: [String]
        /// The declared intent when it differs from the fixture's.
        var access = TeamFixture.access
    }

    let bugs: [Bug] = [
        Bug(
            what: "projects readable by every signed-in user",
            sql:
                "drop policy projects_read on public.projects; create policy r on public.projects for select to authenticated using (true);",
            fails: ["public.projects: G2 owner reads G1's row", "public.projects: outsider reads G1's row"]),
        Bug(
            what: "anyone may join a team by inserting their own membership",
            sql:
                "create policy self_join on public.team_members for insert to authenticated with check (user_id = (select auth.uid()));",
            fails: [
                "public.team_members: outsider joins G1 uninvited", "public.team_members: G2 owner joins G1 uninvited",
            ]),
        Bug(
            what: "members may edit memberships, their own role included",
            sql:
                "drop policy members_role on public.team_members; create policy e on public.team_members for update to authenticated using (public.is_member(team_id));",
            fails: ["public.team_members: G1 member promotes self to owner"]),
        // With projects readable by everyone signed in, SELECT policies no longer guard the new row.
        Bug(
            what: "a project's new row is not checked, so it can move to any team",
            sql:
                "drop policy projects_read on public.projects; create policy r on public.projects for select to authenticated using (true);"
                + "drop policy projects_edit on public.projects; create policy e on public.projects for update to authenticated using (public.is_member(team_id)) with check (true);",
            fails: ["public.projects: G1 owner moves G1's row into G2"],
            access: TeamFixture.access.replacingOccurrences(
                of: "group team_id\n  read members", with: "group team_id\n  read signed-in")),
        // Only owners edit projects; a WITH CHECK that asks only for membership lets a user who
        // owns G1 and is a plain member of G2 push G1's project into G2 (a user in one group is
        // stopped by the SELECT policy on the new row).
        Bug(
            what: "owners edit projects, but the new row only needs a member",
            sql:
                "drop policy projects_edit on public.projects; create policy e on public.projects for update to authenticated using (public.has_role(team_id, 'owner')) with check (public.is_member(team_id));",
            fails: ["public.projects: G1 owner in G2 as member moves G1's row into G2"],
            access: TeamFixture.access.replacingOccurrences(
                of: "group team_id\n  read members\n  insert members\n  update members",
                with: "group team_id\n  read members\n  insert members\n  update members with role owner")),
        Bug(
            what: "any member deletes projects",
            sql:
                "drop policy projects_drop on public.projects; create policy d on public.projects for delete to authenticated using (public.is_member(team_id));",
            fails: ["public.projects: G1 member deletes G1's row"]),
        Bug(
            what: "any member removes others",
            sql:
                "drop policy members_remove on public.team_members; create policy d on public.team_members for delete to authenticated using (public.is_member(team_id));",
            fails: ["public.team_members: G1 member removes G1 owner"]),
        Bug(
            what: "a role check without the team: owners of any team see every team",
            sql:
                "drop policy teams_read on public.teams; create policy r on public.teams for select to authenticated using (exists (select 1 from public.team_members m where m.user_id = (select auth.uid()) and m.role = 'owner'));",
            fails: ["public.teams: G2 owner reads G1's row"]),
    ]

    func testEachBugClassIsFoundWithTableActorAndOperation() throws {
        for b in bugs {
            let report = try TeamFixture.run(breakage: b.sql, access: b.access)
            let failed = report.outcomes.filter(\.isFailure)
            XCTAssertFalse(report.passed, "\(b.what): not caught")
            for name in b.fails {
                guard let o = failed.first(where: { "\($0.suite): \($0.name)" == name }) else {
                    XCTFail(
                        "\(b.what): expected '\(name)' to fail; failures: \(failed.map { "\($0.suite): \($0.name)" })")
                    continue
                }
                XCTAssertTrue(o.message?.contains("as \(o.actor!)") == true, o.message ?? "")
                // The policies that decided it are named (a denial by privilege names none).
                if !(o.got ?? "").contains("denied by privilege") {
                    XCTAssertFalse(o.policies?.isEmpty ?? true, "\(name): no policy named: \(o.message ?? "")")
                }
                XCTAssertTrue(o.message?.hasPrefix(o.suite + " · ") == true, o.message ?? "")
            }
        }
    }
}
