import Foundation
import TestSupport
import XCTest

/// A survivor's suggested test, pasted as printed, kills it: the access-file block in the
/// access file, the pgTAP lines in a pgTAP file.
final class MutateSuggestionTests: ScratchTestCase {
    static let migration = """
        create table public.tasks (
          id uuid primary key default gen_random_uuid(),
          user_id uuid not null default auth.uid() references auth.users (id),
          title text
        );
        alter table public.tasks enable row level security;
        grant select, insert on public.tasks to authenticated;
        create policy "add tasks" on public.tasks for insert to authenticated with check (user_id = auth.uid());
        create policy "read tasks" on public.tasks for select to authenticated using (user_id = auth.uid());

        create table public.drafts (
          id bigint generated always as identity primary key,
          author uuid not null default auth.uid() references auth.users (id),
          body text
        );
        alter table public.drafts enable row level security;
        grant select, insert, update on public.drafts to authenticated;
        create policy "add drafts" on public.drafts for insert to authenticated with check (author = auth.uid());
        create policy "read drafts" on public.drafts for select to authenticated using (author = auth.uid());
        create policy "edit drafts" on public.drafts for update to authenticated using (author = auth.uid());
        """

    /// Writes only: nothing reads a row back or touches another user's.
    static let scenario = """
        scenario alice writes
          user alice
          as alice: insert into public.tasks (title) values ('one')
            expect 1 row affected
          as alice: insert into public.drafts (body) values ('two')
            expect 1 row affected
        """

    func run(_ dir: String) throws -> [[String: Any]] {
        let r = try CLI.run(["mutate", "--json", "m.json"], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/m.json"))
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(doc["mutants"] as? [[String: Any]])
    }

    func find(_ all: [[String: Any]], _ kind: String, _ policy: String, _ mutation: String) throws -> [String: Any] {
        try XCTUnwrap(
            all.first {
                $0["kind"] as? String == kind && $0["policy"] as? String == policy
                    && ($0["mutation"] as? String)?.hasPrefix(mutation) == true
            }, "\(kind) \(policy) in \(all)")
    }

    static let swapped = ("identity-column", "read tasks", "USING: user_id replaced by id")
    static let weakened = ("check-weakened", "edit drafts", "WITH CHECK (true) added")
    static let unchecked = ("check-true", "add drafts", "WITH CHECK replaced by true")

    func testTheSuggestedAccessFileBlocksKillTheirMutants() throws {
        let dir = try folder(["sql/migrations/0001_app.sql": Self.migration, "sql/tests/a.scenario": Self.scenario])
        let before = try run(dir)
        var blocks: [String] = []
        for (kind, policy, mutation) in [Self.swapped, Self.unchecked] {
            let m = try find(before, kind, policy, mutation)
            XCTAssertEqual(m["status"] as? String, "survived", "\(m)")
            blocks.append(try XCTUnwrap(m["suggestion"] as? String, "\(m)"))
        }
        XCTAssertEqual(
            blocks,
            [
                "table public.tasks\n  owner user_id\n  read owner\n  insert owner\n  update nobody\n  delete nobody",
                "table public.drafts\n  owner author\n  read owner\n  insert owner\n  update owner\n  delete nobody",
            ])
        try (blocks.joined(separator: "\n\n") + "\n").write(
            toFile: dir + "/sql/tests/access.rls", atomically: true, encoding: .utf8)
        let after = try run(dir)
        for (kind, policy, mutation) in [Self.swapped, Self.unchecked] {
            let m = try find(after, kind, policy, mutation)
            XCTAssertEqual(m["status"] as? String, "killed", "\(m)")
            XCTAssertTrue((m["killedBy"] as? String)?.contains("access.rls") == true, "\(m)")
        }
    }

    func testTheSuggestedPgTAPLinesKillTheirMutants() throws {
        let dir = try folder(["sql/migrations/0001_app.sql": Self.migration, "sql/tests/a.scenario": Self.scenario])
        let before = try run(dir)
        for (i, (kind, policy, mutation)) in [Self.swapped, Self.weakened].enumerated() {
            let m = try find(before, kind, policy, mutation)
            let lines = try XCTUnwrap(m["pgtap"] as? String, "\(m)")
            XCTAssertTrue(lines.contains("set local request.jwt.claims"), lines)
            let tests =
                lines.components(separatedBy: "select is").count + lines.components(separatedBy: "throws_ok").count - 2
            try "begin;\nselect plan(\(tests));\n\(lines)\nselect * from finish();\nrollback;\n".write(
                toFile: dir + "/sql/tests/t\(i).sql", atomically: true, encoding: .utf8)
        }
        let after = try run(dir)
        for (kind, policy, mutation) in [Self.swapped, Self.weakened] {
            let m = try find(after, kind, policy, mutation)
            XCTAssertEqual(m["status"] as? String, "killed", "\(m)")
            XCTAssertTrue((m["killedBy"] as? String)?.contains(".sql") == true, "\(m)")
        }
    }
}
