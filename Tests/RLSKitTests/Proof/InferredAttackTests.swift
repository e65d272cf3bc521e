import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// The attack on a fresh stand-in database, and the check that each planted bug is caught.
extension XCTestCase {
    func attack(_ sql: String, declared: Set<String> = []) throws -> InferredAttack.Result {
        let db = try StandIn.makeDatabase(prefix: "inferred")
        defer {
            db.conn.close()
            TestServer.drop(db.name)
        }
        _ = try db.conn.runScript(sql)
        let users: Int64 = try db.conn.query("select count(*) from auth.users").rows[0].decode(0)
        let rows = try db.conn.query(ProverTests.rowCounts).rows[0]["n"]
        let result = try InferredAttack.run(
            schemas: ["public"], declared: declared, options: HarnessOptions(), on: db.connectionString,
            ownsDatabase: true)
        XCTAssertEqual(try db.conn.query("select count(*) from auth.users").rows[0].decode(0), users, "users left")
        XCTAssertEqual(try db.conn.query(ProverTests.rowCounts).rows[0]["n"], rows, "rows left")
        XCTAssertEqual(result.sequences.filter { !$0.reset }, [], "sequences not put back")
        return result
    }

    /// Each planted bug (table, words of the check) is caught by a proven ERROR naming its
    /// assumption; no finding is about anything else.
    func assertCaught(
        _ r: InferredAttack.Result, _ planted: [(String, String)], file: StaticString = #filePath, line: UInt = #line
    ) {
        for (table, check) in planted {
            let hits = r.findings.filter { $0.object.name == table && $0.metadata["check"]?.contains(check) == true }
            XCTAssertFalse(hits.isEmpty, "\(table): \(check) not caught", file: file, line: line)
            for f in hits {
                XCTAssertEqual(f.level, .error, file: file, line: line)
                XCTAssertEqual(f.proof?.outcome, .proven, file: file, line: line)
                XCTAssertGreaterThan(f.proof?.rows ?? 0, 0, file: file, line: line)
                XCTAssertTrue(f.detail.contains("assuming"), f.detail, file: file, line: line)
            }
        }
        for f in r.findings where !planted.contains(where: { f.object.name == $0.0 && f.detail.contains($0.1) }) {
            XCTFail("false alarm: \(f.object.name): \(f.detail)", file: file, line: line)
        }
    }
}

/// The inferred attack on three apps no access file declares: the correct variants give no
/// finding, every bug planted in the others is caught and proven, and nothing is left behind.
final class InferredAttackTests: XCTestCase {
    func testNotesCorrectHasNoFinding() throws {
        let r = try attack(InferredAttackFixtures.notesCorrect)
        XCTAssertEqual(r.findings.map(\.detail), [])
        XCTAssertEqual(r.tables.count, 6, "\(r.tables) \(r.notes)")
    }

    func testNotesPlantedBugsCaught() throws {
        let planted = [
            ("api_keys", "inserts a row owned by B"), ("api_keys", "reads"), ("profiles", "is_admin"),
            ("countries", "updates the row"), ("waitlist", "reads the row"), ("notes", "inserts a row owned by B"),
            ("documents", "anon lists"),
        ]
        XCTAssertEqual(planted.count, InferredAttackFixtures.notesPlanted)
        assertCaught(try attack(InferredAttackFixtures.notesBuggy), planted)
    }

    func testTeamsCorrectHasNoFinding() throws {
        let r = try attack(InferredAttackFixtures.teamsCorrect)
        XCTAssertEqual(r.findings.map(\.detail), [])
        XCTAssertEqual(r.tables.count, 7, "\(r.tables)")
    }

    func testTeamsPlantedBugsCaught() throws {
        let planted = [
            ("projects", "reads G"), ("team_members", "promotes self to owner"), ("team_members", "joins G1 uninvited"),
            ("projects", "moves G"), ("invitations", "reads G"), ("team_members", "removes G1 owner"),
            ("avatars", "deletes B's object"),
        ]
        XCTAssertEqual(planted.count, InferredAttackFixtures.teamsPlanted)
        let r = try attack(InferredAttackFixtures.teamsBuggy)
        assertCaught(r, planted)
        let tenant = r.findings.first { $0.object.name == "projects" }?.detail ?? ""
        XCTAssertTrue(tenant.contains("assuming `team_id` is the tenant"), tenant)
    }

    func testOrgsCorrectHasNoFinding() throws {
        let r = try attack(InferredAttackFixtures.orgsCorrect)
        XCTAssertEqual(r.findings.map(\.detail), [])
        XCTAssertEqual(r.tables.count, 5, "\(r.tables)")
    }

    func testOrgsPlantedBugsCaught() throws {
        let planted = [
            ("profiles", " B"), ("documents", "inserts a row into G1"), ("documents", "reads G"),
            ("feature_flags", "the row"), ("memberships", "promotes self to admin"),
        ]
        XCTAssertEqual(planted.count, InferredAttackFixtures.orgsPlanted)
        assertCaught(try attack(InferredAttackFixtures.orgsBuggy), planted)
    }

    func testBoardsCorrectHasNoFinding() throws {
        let r = try attack(InferredAttackFixtures.boardsCorrect)
        XCTAssertEqual(r.findings.map(\.detail), [])
        XCTAssertEqual(r.tables.count, 3, "\(r.tables) \(r.notes)")
    }

    /// The text role's values come from its check constraint, ranked owner first.
    func testBoardsPlantedBugsCaught() throws {
        let planted = [("board_members", "promotes self to owner"), ("cards", "reads G")]
        XCTAssertEqual(planted.count, InferredAttackFixtures.boardsPlanted)
        let r = try attack(InferredAttackFixtures.boardsBuggy)
        assertCaught(r, planted)
        let roles = r.findings.first { $0.object.name == "board_members" }?.detail ?? ""
        XCTAssertTrue(roles.contains("assuming `owner` owns a group and `viewer` is a plain member"), roles)
    }

    func testQuotedValues() {
        XCTAssertEqual(
            AccessDraft.quotedValues("CHECK ((role = ANY (ARRAY['viewer'::text, 'it''s'::text])))"), ["viewer", "it's"])
    }

    /// A table an access file declares is not attacked, nor what depends on its members block.
    func testDeclaredTablesAreLeftAlone() throws {
        let r = try attack(InferredAttackFixtures.teamsBuggy, declared: ["public.team_members", "public.invitations"])
        XCTAssertEqual(
            r.findings.filter { $0.object.name == "team_members" || $0.object.name == "invitations" }.count, 0)
        XCTAssertFalse(r.tables.contains("public.invitations"))
        XCTAssertTrue(r.tables.contains("public.plans"))
    }

    func testSensitiveColumnNames() {
        for n in ["email", "contact_email", "api_key", "secret_key", "refresh_token", "password", "webhook_secret"] {
            XCTAssertTrue(AccessDraft.sensitive(n), n)
        }
        for n in ["key", "name", "token_count_total", "emailed", "monkey", "sort_key"] {
            XCTAssertFalse(AccessDraft.sensitive(n), n)
        }
    }

    func testRolesRankedOwnerFirst() {
        XCTAssertEqual(AccessDraft.rankedRoles(["member", "admin"]), ["admin", "member"])
        XCTAssertEqual(AccessDraft.rankedRoles(["viewer", "owner", "editor"]), ["owner", "editor", "viewer"])
        XCTAssertEqual(AccessDraft.rankedRoles(["gold", "silver"]), ["gold", "silver"])
    }

    /// An unconditional policy named for all its callers is the author's stated intent (WARN);
    /// one named for some of them (admins, owners), or with a condition, is a hole (ERROR).
    func testIntentStatedByThePolicysName() {
        XCTAssertEqual(
            InferredAttack.statedByName(
                #"allowed by policy "Authenticated users can delete residences" (permissive, USING true)"#),
            "Authenticated users can delete residences")
        XCTAssertEqual(
            InferredAttack.statedByName(
                #"allowed by policy "auth_update_notes" (permissive, USING true); new row: allowed by policy "auth_update_notes" (permissive, WITH CHECK true)"#
            ), "auth_update_notes")
        for blame in [
            #"allowed by policy "categories_admin" (permissive, USING true)"#,
            #"allowed by policy "authenticated users manage their own rows" (permissive, USING true)"#,
            #"allowed by policy "anon_update_visitors_same_id" (permissive, USING (private.uuid_or_null((id)::text) IS NOT NULL))"#,
            #"allowed by policy "Authenticated users can read" (permissive, USING (auth.uid() IS NOT NULL))"#,
            "no policy allows it when evaluated alone: look for a trigger or rule",
        ] {
            XCTAssertNil(InferredAttack.statedByName(blame), blame)
        }
    }

    /// `role` is a privilege on a user's own record and content elsewhere: a chat message's
    /// role (user, assistant) and a task's role label are set by their owner freely; a
    /// profile's role is not.
    func testRoleIsContentExceptOnAUsersOwnRecord() throws {
        let r = try attack(
            """
            create table public.messages (id bigint generated by default as identity primary key,
              user_id uuid not null references auth.users, role text not null default 'user', content text);
            create table public.tasks (id bigint generated by default as identity primary key,
              owner_id uuid not null references auth.users, assignee_role text);
            create table public.profiles (id uuid primary key references auth.users, role text not null default 'member');
            alter table public.messages enable row level security;
            alter table public.tasks enable row level security;
            alter table public.profiles enable row level security;
            grant select, insert, update, delete on public.messages, public.tasks, public.profiles to authenticated;
            grant all on public.messages, public.tasks, public.profiles to service_role;
            create policy own_messages on public.messages for all to authenticated
              using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
            create policy own_tasks on public.tasks for all to authenticated
              using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));
            create policy own_profile on public.profiles for all to authenticated
              using (id = (select auth.uid())) with check (id = (select auth.uid()));
            """)
        XCTAssertEqual(
            r.findings.filter { $0.object.name == "messages" || $0.object.name == "tasks" }.map(\.detail), [])
        XCTAssertTrue(
            r.findings.contains { $0.object.name == "profiles" && $0.detail.contains("`role`") },
            r.findings.map(\.detail).joined(separator: "\n"))
    }
}
