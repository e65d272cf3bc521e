import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// `rlskit init`'s draft: candidates from foreign keys, policies quoted, every intent a question
/// the parser refuses until it is answered; answered, the file runs.
final class AccessDraftTests: XCTestCase {
    func draft() throws -> (AccessDraft.Draft, ConnectionString, String) {
        let db = try StandIn.makeDatabase(prefix: "draft")
        _ = try db.conn.runScript(AccessDraftFixture.schema)
        return (try AccessDraft.run(on: db.connectionString), db.connectionString, db.name)
    }

    /// The lines of one block, from its block line to the next blank line.
    func block(_ text: String, _ head: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0 == head || $0.hasPrefix(head + " ") }) else { return [] }
        return Array(lines[start...].prefix { !$0.isEmpty })
    }

    func settings(_ lines: [String]) -> [String] {
        lines.dropFirst().filter { !$0.hasPrefix("  #") }.map {
            AccessFile.stripComment($0)
        }
    }

    func testDraftListsCandidatesAndQuotesPolicies() throws {
        let (d, _, name) = try draft()
        defer { TestServer.drop(name) }
        XCTAssertTrue(d.text.contains("\nexpose public\n"), d.text)
        XCTAssertEqual(settings(block(d.text, "table public.posts")), ["owner author_id", "read ?", "write ?"])
        XCTAssertEqual(settings(block(d.text, "table public.profiles")), ["owner id", "read ?", "write ?"])
        XCTAssertEqual(settings(block(d.text, "table public.plans")), ["read ?", "write ?"])
        XCTAssertEqual(
            settings(block(d.text, "table public.projects")), ["group team_id", "read ?", "write ?"])
        XCTAssertEqual(
            settings(block(d.text, "table public.teams")), ["owner created_by", "group id", "read ?", "write ?"])
        XCTAssertEqual(
            settings(block(d.text, "members public.team_members")),
            [
                "group team_id", "user user_id", "role role", "roles owner member", "read ?", "add ?", "remove ?",
                "leave ?", "change-role ?",
            ])
        XCTAssertEqual(
            settings(block(d.text, "bucket docs")),
            ["ownership ?", "read ?", "upload ?", "overwrite ?", "move ?", "delete ?"])
        // A membership table offers team folders and members as answers.
        XCTAssertTrue(block(d.text, "bucket docs").contains { $0.contains("ownership ?") && $0.contains("| group (") })
        XCTAssertTrue(
            block(d.text, "bucket docs").contains {
                $0.contains("upload ?") && $0.contains("| members | members with role owner, member |")
            }, d.text)
        XCTAssertFalse(d.text.contains("table public.team_members"), "a membership table is a members block")
        // The choices offered follow the candidates; the enum's roles are offered to group tables.
        XCTAssertTrue(
            block(d.text, "table public.projects").contains {
                $0.contains("read ?") && $0.contains("members with role owner, member")
            }, d.text)
        XCTAssertFalse(block(d.text, "table public.plans").contains { $0.contains("| owner |") }, d.text)
        // Policies quoted as comments, as the catalog has them.
        let posts = block(d.text, "table public.posts")
        XCTAssertTrue(
            posts.contains(
                "  #   policy \"authors edit\" for update to authenticated using ((author_id = ( SELECT auth.uid() AS uid))) with check ((author_id = ( SELECT auth.uid() AS uid)))"
            ),
            posts.joined(separator: "\n"))
        XCTAssertTrue(
            posts.contains("  #   policy \"posts are public\" for select to anon, authenticated using (true)"))
        XCTAssertTrue(
            block(d.text, "bucket docs").contains { $0.hasPrefix("  #   policy \"own docs upload\" for insert") })
        XCTAssertFalse(block(d.text, "bucket docs").contains { $0.contains("price list") })
        XCTAssertEqual(d.tables, 5)
        XCTAssertEqual(d.memberships, 1)
        XCTAssertEqual(d.buckets, 1)
        XCTAssertEqual(d.questions, 5 * 2 + 5 + 6)
        // No intent is answered for the user, and no policy here reads a claim.
        let intents = ["read", "write", "insert", "update", "delete", "add", "remove", "leave", "change-role"]
        for line in d.text.split(separator: "\n") {
            let words = AccessFile.stripComment(String(line)).split(separator: " ")
            if let k = words.first, intents.contains(String(k)) { XCTAssertEqual(words.dropFirst(), ["?"], "\(line)") }
        }
        XCTAssertFalse(d.text.contains("read JWT claims"))
    }

    func testUnansweredDraftDoesNotParse() throws {
        let (d, _, name) = try draft()
        defer { TestServer.drop(name) }
        let lines = d.text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = try XCTUnwrap(lines.firstIndex { $0.contains(" ?") && !$0.hasPrefix("#") })
        let head = try XCTUnwrap(lines[..<first].last { !$0.hasPrefix(" ") && !$0.hasPrefix("#") && !$0.isEmpty })
        let key = lines[first].split(separator: " ")[0]
        XCTAssertThrowsError(try AccessFile.parse(d.text, path: "access.rls")) { e in
            XCTAssertEqual(
                (e as? InputError)?.description.hasPrefix(
                    "access.rls:\(first + 1): \(head.split(separator: " ").prefix(2).joined(separator: " ")): '\(key)' is not answered yet: replace '?' with "
                ), true, "\(e)")
        }
        // One question left anywhere is enough to refuse the file.
        var answered = AccessDraftFixture.answered(d.text)
        answered = answered.replacingOccurrences(of: "  read anyone\n  write nobody", with: "  read ?\n  write nobody")
        XCTAssertThrowsError(try AccessFile.parse(answered, path: "access.rls")) { e in
            XCTAssertTrue(
                "\(e)".contains(": table public.plans: 'read' is not answered yet: replace '?' with who may read"),
                "\(e)")
        }
    }

    func testQuestionsAreRefusedInEveryBlock() {
        let cases = [
            (
                "table public.posts\n  owner author_id\n  read ?\n  write owner\n",
                "a.rls:3: table public.posts: 'read' is not answered yet: replace '?' with who may read"
            ),
            (
                "table public.posts\n  owner ?\n  read anyone\n  write nobody\n",
                "a.rls:2: table public.posts: 'owner' is not answered yet: replace '?' with the column holding the owner's user id"
            ),
            (
                "members public.m\n  group g\n  user u\n  read members\n  add ?\n",
                "a.rls:5: members public.m: 'add' is not answered yet: replace '?' with who may add others to a group"
            ),
            (
                "bucket docs\n  read owner\n  write ?\n",
                "a.rls:3: bucket docs: 'write' is not answered yet: replace '?' with who may upload, overwrite, move and delete"
            ),
            (
                "bucket docs\n  ownership ?\n  read owner\n  write owner\n",
                "a.rls:2: bucket docs: 'ownership' is not answered yet: replace '?' with folder, owner-id or group"
            ),
            (
                "bucket docs\n  ownership folder\n  read owner\n  upload owner\n  overwrite ?\n",
                "a.rls:5: bucket docs: 'overwrite' is not answered yet: replace '?' with who may overwrite"
            ),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try AccessFile.parse(text, path: "a.rls")) { e in
                XCTAssertEqual((e as? InputError)?.description, message)
            }
        }
        // In SQL, `?` is an operator: a seed expression may hold it.
        XCTAssertNoThrow(
            try AccessFile.parse(
                "table public.t\n  owner o\n  read anyone\n  write owner\n  seed tags = '{}'::jsonb ? 'a'\n",
                path: "a.rls"))
    }

    func testAnsweredDraftParsesAndRuns() throws {
        let (d, c, name) = try draft()
        defer { TestServer.drop(name) }
        let file = try AccessFile.parse(AccessDraftFixture.answered(d.text), path: "access.rls")
        XCTAssertEqual(file.tables.count, 5)
        XCTAssertEqual(file.memberships.count, 1)
        var input = HarnessInput()
        input.access = [file]
        let report = try Harness.run(input, options: HarnessOptions(), on: c)
        let failures = report.outcomes.filter(\.isFailure)
        XCTAssertTrue(
            report.passed, failures.map { "\($0.suite): \($0.name): \($0.message ?? "")" }.joined(separator: "\n"))
        let suites = Set(report.outcomes.map(\.suite))
        for s in [
            "public.posts", "public.profiles", "public.plans", "public.projects", "public.team_members", "bucket docs",
        ] {
            XCTAssertTrue(suites.contains { $0.contains(s) }, "no checks for \(s): \(suites.sorted())")
        }
    }

    /// The access-file page's example is what init writes for such a table.
    func testREADMEExampleIsTheDraft() throws {
        let db = try StandIn.makeDatabase(prefix: "draft")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(
            """
            create table public.posts (id bigint primary key, author_id uuid references auth.users (id), body text);
            alter table public.posts enable row level security;
            create policy "posts are public" on public.posts for select to anon, authenticated using (true);
            """)
        let d = try AccessDraft.run(on: db.connectionString)
        XCTAssertEqual(
            try DocPage.block(after: "## A first access file: `rlskit init`", in: "docs/access-files.md"),
            block(d.text, "table public.posts").joined(separator: "\n"))
    }

    /// Several owner candidates are a question; a text role column asks for its values; a table
    /// pointing at auth.users and another table is no membership unless unique together or so
    /// named; names that need quotes are written so that the file reads them back.
    func testCandidatesThatNeedAnAnswerAndQuotedNames() throws {
        let db = try StandIn.makeDatabase(prefix: "draft")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(
            """
            create table public.channels (id bigint primary key, name text);
            create table public.messages (
              id bigint primary key, sender uuid references auth.users (id), channel_id bigint references public.channels (id));
            create table public.tasks (
              id bigint primary key, created_by uuid references auth.users (id), assignee uuid references auth.users (id));
            create table public.orgs (id bigint primary key);
            create table public.org_users (
              org_id bigint references public.orgs (id), user_id uuid references auth.users (id), member_role text,
              unique (org_id, user_id));
            create table public."My Notes" (id bigint primary key, "Owner Id" uuid references auth.users (id));
            create table public."a#b""c" ("x y" uuid primary key references auth.users (id));
            create table public.people (id uuid primary key references auth.users (id));
            create table public.comments (id bigint primary key, person_id uuid references public.people (id), task_id bigint references public.tasks (id));
            create table public.crews (id bigint primary key);
            create table public.crew_members (crew_id bigint references public.crews (id), person_id uuid references public.people (id));
            alter table public.people enable row level security;
            alter table public.comments enable row level security;
            alter table public.crews enable row level security;
            alter table public.crew_members enable row level security;
            alter table public."a#b""c" enable row level security;
            create policy "admins #1" on public."a#b""c" for all to authenticated using ((auth.jwt() -> 'app_metadata' ->> 'role') = 'admin');
            alter table public.channels enable row level security;
            alter table public.messages enable row level security;
            alter table public.tasks enable row level security;
            alter table public.orgs enable row level security;
            alter table public.org_users enable row level security;
            alter table public."My Notes" enable row level security;
            """)
        let d = try AccessDraft.run(on: db.connectionString)
        XCTAssertEqual(settings(block(d.text, "table public.messages")), ["owner sender", "read ?", "write ?"])
        XCTAssertEqual(settings(block(d.text, "table public.channels")), ["read ?", "write ?"])
        XCTAssertEqual(settings(block(d.text, "table public.tasks")), ["owner ?", "read ?", "write ?"])
        XCTAssertTrue(
            block(d.text, "table public.tasks")[1].hasSuffix(
                "# the column holding the owner's user id: created_by | assignee (or delete the line)"),
            d.text)
        XCTAssertEqual(settings(block(d.text, "table public.orgs")), ["group id", "read ?", "write ?"])
        XCTAssertEqual(
            settings(block(d.text, "members public.org_users")),
            [
                "group org_id", "user user_id", "role member_role", "roles ?", "read ?", "add ?", "remove ?", "leave ?",
                "change-role ?",
            ])
        XCTAssertEqual(
            settings(block(d.text, "table public.\"My Notes\"")), ["owner \"Owner Id\"", "read ?", "write ?"])
        XCTAssertTrue(block(d.text, "table public.orgs").contains("  # no policies today"), d.text)
        XCTAssertEqual(settings(block(d.text, "table public.\"a#b\"\"c\"")), ["owner \"x y\"", "read ?", "write ?"])
        XCTAssertTrue(d.text.contains("\n# Policies of public.\"a#b\"\"c\" read JWT claims."), d.text)
        XCTAssertTrue(d.text.contains("\n  #   policy \"admins #1\" for all to authenticated using "), d.text)
        // A key that is a user's id (people.id) makes the columns pointing at it user ids too.
        XCTAssertEqual(settings(block(d.text, "table public.comments")), ["owner person_id", "read ?", "write ?"])
        XCTAssertTrue(
            block(d.text, "table public.comments")[1].hasSuffix("# references public.people(id), a user's id"), d.text)
        XCTAssertEqual(
            settings(block(d.text, "members public.crew_members")),
            ["group crew_id", "user person_id", "read ?", "add ?", "remove ?", "leave ?"])
        XCTAssertEqual(settings(block(d.text, "table public.crews")), ["group id", "read ?", "write ?"])
        // The role skeleton for the claim "admins #1" reads: its name and its claim.
        XCTAssertEqual(d.questions, 2 * 9 + 1 + 6 + 4 + 2)

        let answered = d.text.replacingOccurrences(of: "\nrole ?", with: "\nrole admin")
            .replacingOccurrences(of: "claim ?", with: "claim app_metadata.role = admin")
            .replacingOccurrences(of: "owner ?", with: "owner assignee")
            .replacingOccurrences(of: "roles ?", with: "roles admin member")
            .replacingOccurrences(of: "read ?", with: "read nobody").replacingOccurrences(
                of: "write ?", with: "write nobody"
            )
            .replacingOccurrences(of: "leave ?", with: "leave nobody")
            .replacingOccurrences(of: " ?", with: " members")
        let file = try AccessFile.parse(answered, path: "a.rls")
        XCTAssertEqual(file.tables.first { $0.name == "My Notes" }?.owner, "Owner Id")
        XCTAssertEqual(file.tables.first { $0.name == "tasks" }?.owner, "assignee")
        XCTAssertEqual(file.tables.first { $0.name == "a#b\"c" }?.owner, "x y")
        XCTAssertEqual(file.memberships.map(\.roles), [[], ["admin", "member"]])
    }
}
