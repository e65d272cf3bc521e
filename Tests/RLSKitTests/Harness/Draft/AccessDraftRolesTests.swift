import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// `rlskit init` asks which privilege-named columns are protected, and drafts a `role ?` block
/// per claim today's policies (or the functions they call) read: the claim as a comment only.
final class AccessDraftRolesTests: XCTestCase {
    static let schema = """
        create schema private;
        create table public.accounts (
          id uuid primary key references auth.users (id),
          display_name text,
          is_admin boolean not null default false,
          plan text not null default 'free',
          credit_balance int not null default 0,
          score int generated always as (credit_balance * 2) stored
        );
        create table public.docs (
          id bigint generated always as identity primary key,
          author_id uuid not null references auth.users (id),
          status text
        );
        create table public.tags (id bigint generated always as identity primary key, status text);
        alter table public.accounts enable row level security;
        alter table public.docs enable row level security;
        alter table public.tags enable row level security;
        create function private.is_moderator() returns boolean language sql stable as $$
          select (auth.jwt() ->> 'user_role') = 'moderator' $$;
        create policy "accounts read" on public.accounts for select to authenticated
          using (id = (select auth.uid()) or ((select auth.jwt()) -> 'app_metadata' ->> 'role') = 'admin');
        create policy "not a claim" on public.accounts for update to authenticated
          using (display_name <> 'auth.jwt() ->> ''fake'' = ''x''' and (select auth.jwt()) ->> 'email' is not null);
        create policy "docs delete" on public.docs for delete to authenticated
          using (author_id = (select auth.uid()) or private.is_moderator());
        create policy "docs gold" on public.docs for update to authenticated
          using (current_setting('request.jwt.claims', true)::jsonb -> 'user_metadata' ->> 'tier' = 'gold');
        """

    func draft() throws -> String {
        let db = try StandIn.makeDatabase(prefix: "draftroles")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema)
        return try AccessDraft.run(on: db.connectionString).text
    }

    func block(_ text: String, _ head: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0 == head || $0.hasPrefix(head + " ") }) else { return [] }
        return Array(lines[start...].prefix { !$0.isEmpty })
    }

    func testProtectIsAskedWherePrivilegeNamedColumnsAre() throws {
        let text = try draft()
        let accounts = block(text, "table public.accounts")
        let protect = accounts.first { $0.hasPrefix("  protect") } ?? ""
        XCTAssertEqual(AccessFile.stripComment(protect).trimmingCharacters(in: .whitespaces), "protect ?", text)
        XCTAssertTrue(protect.contains("is_admin, plan, credit_balance (or delete the line)"), protect)
        XCTAssertFalse(protect.contains("score"), "a generated column cannot be set: \(protect)")
        XCTAssertTrue(
            block(text, "table public.docs").contains { $0.hasPrefix("  protect ?") && $0.contains("status") })
        // No owner or group: a protected column would have no own row, so nothing is asked.
        XCTAssertFalse(block(text, "table public.tags").contains { $0.contains("protect") }, text)
    }

    func testRoleSkeletonsCarryTheClaimAsACommentOnly() throws {
        let text = try draft()
        let skeletons = text.components(separatedBy: "\n\nrole ?").dropFirst().map {
            "role ?" + ($0.components(separatedBy: "\n\n").first ?? "")
        }
        XCTAssertEqual(skeletons.count, 3, text)
        let reads = skeletons.map { s in s.split(separator: "\n").first { $0.hasPrefix("  # read today: ") } ?? "" }
        XCTAssertEqual(
            reads,
            [
                "  # read today: app_metadata.role = 'admin', in policy \"accounts read\" on public.accounts",
                "  # read today: user_role = 'moderator', in is_moderator(), called by policy \"docs delete\" on public.docs",
                "  # read today: user_metadata.tier = 'gold', in policy \"docs gold\" on public.docs",
            ], text)
        XCTAssertTrue(skeletons.contains { $0.contains("user_metadata.tier") && $0.contains("it cannot hold a role") })
        XCTAssertFalse(reads.contains { $0.contains("fake") }, "a string that only looks like a claim read is not one")
        XCTAssertFalse(text.contains("read today: email"), "claims every token carries are no role")
        for s in skeletons {
            let settings = s.split(separator: "\n").map { AccessFile.stripComment(String($0)) }.filter {
                !$0.trimmingCharacters(in: .whitespaces).isEmpty
            }
            XCTAssertEqual(settings, ["role ?", "claim ?"], s)
        }
    }

    func testTheParserRefusesEveryNewQuestion() throws {
        let text = try draft()
        XCTAssertThrowsError(try AccessFile.parse(text, path: "access.rls")) { e in
            XCTAssertTrue("\(e)".contains("role ?: the role is not named yet"), "\(e)")
        }
        XCTAssertThrowsError(try AccessFile.parse("role admin\n  claim ?\n", path: "a.rls")) { e in
            XCTAssertEqual(
                "\(e)",
                "a.rls:2: role admin: 'claim' is not answered yet: replace '?' with where the platform puts the claim: app_metadata.KEY = VALUE, or KEY = VALUE"
            )
        }
        XCTAssertThrowsError(
            try AccessFile.parse(
                "table public.docs\n  owner author_id\n  read anyone\n  write owner\n  protect ?\n", path: "a.rls")
        ) { e in
            XCTAssertTrue("\(e)".hasPrefix("a.rls:5: table public.docs: 'protect' is not answered yet"), "\(e)")
        }
    }
}
