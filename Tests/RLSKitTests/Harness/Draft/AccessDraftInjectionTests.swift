import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Catalog text is the schema author's: a line break in a name, an enum label, a policy's
/// string literal, a claim key or a bucket id must not give `rlskit init`'s draft a line of its
/// own. Each case below tries to add `function public.leakN() callable-by anyone`; the draft,
/// answered and parsed back, must declare no function and only the tables that exist.
final class AccessDraftInjectionTests: XCTestCase {
    static func evil(_ n: Int, _ lineBreak: String = "\n") -> String {
        "\(lineBreak)function public.leak\(n)() callable-by anyone\(lineBreak)"
    }

    static var schema: String {
        """
        create table public.notes (id bigint primary key, user_id uuid references auth.users (id), body text);
        alter table public.notes enable row level security;
        comment on table public.notes is E'note\\nfunction public.leak0() callable-by anyone';
        -- A policy's string literal, with \\n and with \\r\\n; a policy named with a line break.
        create policy p1 on public.notes for select to authenticated using (body <> E'x\(evil(1, "\\n"))');
        create policy p2 on public.notes for update to authenticated using (body <> E'y\(evil(2, "\\r\\n"))');
        create policy "p3\(evil(3))" on public.notes for delete to authenticated using (true);
        -- A table name and an owner column name.
        create table public."t\(evil(4))" (id bigint primary key, user_id uuid references auth.users (id));
        alter table public."t\(evil(4))" enable row level security;
        create table public.docs (id bigint primary key, "o\(evil(5))" uuid references auth.users (id));
        alter table public.docs enable row level security;
        -- A membership table whose role enum has a label with a line break.
        create type public.team_role as enum ('owner', E'member\(evil(6, "\\n"))');
        create table public.teams (id bigint primary key, name text);
        create table public.team_members (
          team_id bigint not null references public.teams (id), user_id uuid not null references auth.users (id),
          role public.team_role not null, unique (team_id, user_id));
        alter table public.teams enable row level security;
        alter table public.team_members enable row level security;
        -- A claim key read by a policy, and a helper function named with a line break.
        create function public."f\(evil(7))"() returns boolean language sql stable as $$ select true $$;
        create policy p4 on public.teams for select to authenticated
          using ((auth.jwt() -> 'app_metadata' ->> E'k\(evil(8, "\\n"))') = 'admin' and public."f\(evil(7))"());
        -- Bucket ids: a line break, a quote that would swallow the comment after it, a dollar quote.
        insert into storage.buckets (id, name, public) values
          (E'b\(evil(9, "\\n"))', 'b1', true), ('it''s', 'b2', true), ('$$b', 'b3', true), ('docs', 'docs', false);
        """
    }

    func draft() throws -> (AccessDraft.Draft, String) {
        let db = try StandIn.makeDatabase(prefix: "draftinj")
        _ = try db.conn.runScript(Self.schema)
        let schemas = ["public", "api" + Self.evil(10)]
        return (try AccessDraft.run(options: .init(exposedSchemas: schemas), on: db.connectionString), db.name)
    }

    /// Each `key ?` answered with a value every block accepts; role skeletons and the questions
    /// a line can leave out (owner, group, protect) are dropped.
    static func answered(_ draft: String) -> String {
        let answers = [
            "read": "nobody", "write": "nobody", "ownership": "owner-id", "upload": "nobody", "overwrite": "nobody",
            "move": "nobody", "delete": "nobody", "add": "nobody", "remove": "nobody", "leave": "nobody",
            "change-role": "nobody", "roles": "owner member",
        ]
        var out: [String] = []
        var inRole = false
        for line in TextFile.lines(draft).map(String.init) {
            let words = AccessFile.splitWords(AccessFile.stripComment(line))
            if !line.hasPrefix(" ") && !words.isEmpty { inRole = words == ["role", "?"] }
            if inRole { continue }
            guard words.count == 2, words[1] == "?" else {
                out.append(line)
                continue
            }
            if let a = answers[words[0]] { out.append("  \(words[0]) \(a)") }
        }
        return out.joined(separator: "\n")
    }

    func testCatalogTextNeverBecomesALineOfTheDraft() throws {
        let (d, name) = try draft()
        defer { TestServer.drop(name) }
        // Every line break is one the draft meant: editors and the parser see the same lines.
        let lines = d.text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(TextFile.lines(d.text).count, lines.count)
        for line in lines {
            XCTAssertFalse(line.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(line)")
            let live = AccessFile.stripComment(String(line))
            XCTAssertFalse(live.contains("leak"), "catalog text outside a comment: \(line)")
            XCTAssertFalse(live.hasPrefix("function") || live.hasPrefix("header"), "\(line)")
        }
        // The text is still there for the reader, escaped, in comments.
        XCTAssertTrue(lines.contains("  #     function public.leak1() callable-by anyone"), d.text)
        XCTAssertTrue(d.text.contains("skipped table public.\"t\\nfunction public.leak4()"), d.text)
        XCTAssertTrue(d.text.contains("# exposed schema \"api\\nfunction public.leak10()"), d.text)
        XCTAssertTrue(d.text.contains("\nexpose public\n"), d.text)
    }

    func testTheAnsweredDraftDeclaresOnlyWhatExists() throws {
        let (d, name) = try draft()
        defer { TestServer.drop(name) }
        let file = try AccessFile.parse(Self.answered(d.text), path: "access.rls")
        XCTAssertEqual(file.functions.map(\.display), [])
        XCTAssertEqual(file.headers.map(\.name), [])
        XCTAssertEqual(file.exposedSchemas, ["public"])
        XCTAssertEqual(Set(file.tables.map(\.qualifiedName)), ["public.notes", "public.docs", "public.teams"])
        XCTAssertEqual(file.memberships.map(\.qualifiedName), ["public.team_members"])
        // The unnameable owner column is no candidate; the enum's labels are a question, not a line.
        XCTAssertEqual(file.tables.first { $0.name == "docs" }?.owner, "")
        XCTAssertEqual(file.memberships.first?.roles, ["owner", "member"])
        // Only the bucket a line can name (the others are skipped with a comment).
        XCTAssertEqual(file.buckets.map(\.id), ["docs"])
        XCTAssertEqual(d.text.components(separatedBy: "# skipped bucket").count - 1, 3, d.text)
    }
}
