import Foundation
import TestSupport
import XCTest

/// `rlskit mutate` end to end: the built-in schema's tests kill every mutant that is not
/// equivalent; a project whose tests miss a table has that table's mutants survive, each named
/// with the migration line that made its policy and a test to add.
final class MutateCommandTests: ScratchTestCase {
    func mutants(_ path: String) throws -> (score: Double, mutants: [[String: Any]]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (try XCTUnwrap(doc["score"] as? Double), try XCTUnwrap(doc["mutants"] as? [[String: Any]]))
    }

    func testTheBuiltInSchemasTestsKillEveryMutant() throws {
        let dir = try folder([:])
        let r = try CLI.run(["mutate", "--builtin", "--json", dir + "/m.json"], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertFalse(r.stdout.contains("SURVIVED"), r.stdout)
        let (score, mutants) = try mutants(dir + "/m.json")
        XCTAssertEqual(score, 100, r.stdout)
        XCTAssertGreaterThan(mutants.count, 30)
        for m in mutants {
            for key in ["table", "policy", "file", "line", "mutation", "status", "killedBy"] {
                XCTAssertTrue(m.keys.contains(key), "\(key) missing in \(m)")
            }
            let status = try XCTUnwrap(m["status"] as? String)
            XCTAssertTrue(["killed", "equivalent"].contains(status), "\(m)")
            if status == "killed" { XCTAssertNotNil(m["killedBy"] as? String, "\(m)") }
            if m["policy"] is String {
                XCTAssertTrue((m["file"] as? String)?.hasPrefix("sql/migrations/") == true, "\(m)")
            }
        }
        XCTAssertTrue(mutants.contains { $0["status"] as? String == "equivalent" })
    }

    /// The repository's project with the posts block taken out of its access file.
    func testWithoutThePostsBlockPostsMutantsSurviveWithSuggestions() throws {
        let root = Provisioned.repositoryRoot
        var files: [String: String] = [:]
        for sub in ["sql/migrations", "sql/tests"] {
            for f in try FileManager.default.contentsOfDirectory(atPath: root + "/" + sub) {
                files[sub + "/" + f] = try String(contentsOfFile: root + "/" + sub + "/" + f, encoding: .utf8)
            }
        }
        let access = try XCTUnwrap(files["sql/tests/access.rls"])
        let start = try XCTUnwrap(access.range(of: "table public.posts"))
        let end = try XCTUnwrap(access.range(of: "bucket avatars"))
        files["sql/tests/access.rls"] = String(access[..<start.lowerBound]) + String(access[end.lowerBound...])
        let dir = try folder(files)
        let r = try CLI.run(["mutate", "--json", "m.json", "--min-score", "100"], directory: dir)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("below --min-score 100"), r.stdout)
        let survivors = try mutants(dir + "/m.json").mutants.filter { $0["status"] as? String == "survived" }
        XCTAssertFalse(survivors.isEmpty, r.stdout)
        for m in survivors {
            XCTAssertEqual(m["table"] as? String, "public.posts", "\(m)")
            XCTAssertEqual(m["file"] as? String, "sql/migrations/0004_posts.sql", "\(m)")
            XCTAssertTrue(
                (m["suggestion"] as? String)?.hasPrefix("table public.posts\n  owner author_id\n") == true, "\(m)")
        }
        XCTAssertTrue(
            survivors.contains { $0["policy"] as? String == "Users create their own posts" && $0["line"] as? Int == 30 }
        )
        XCTAssertTrue(
            r.stdout.contains(
                "SURVIVED policy \"Users create their own posts\" on public.posts (sql/migrations/0004_posts.sql:30)"),
            r.stdout)
    }

    static let project = [
        "sql/migrations/0001_app.sql": """
        create table public.notes (
          id bigint generated always as identity primary key,
          owner_id uuid not null default auth.uid() references auth.users (id),
          body text
        );
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to authenticated;
        create policy "own notes" on public.notes for all to authenticated
          using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));

        create table public.journal (
          id bigint generated always as identity primary key,
          writer uuid not null default auth.uid() references auth.users (id),
          entry text
        );
        alter table public.journal enable row level security;
        grant select, insert on public.journal to authenticated;
        create policy "journal writers"
          on public.journal for insert to authenticated with check (writer = auth.uid());
        create policy "journal readers" on public.journal for select to authenticated using (writer = auth.uid());

        create function public.clear_note(note_id bigint) returns void
        language plpgsql security definer set search_path = '' as $$
        begin
          if not exists (select 1 from public.notes where id = note_id and owner_id = auth.uid()) then
            raise exception 'not your note';
          end if;
          update public.notes set body = null where id = note_id;
        end;
        $$;
        revoke all on function public.clear_note(bigint) from public, anon;
        grant execute on function public.clear_note(bigint) to authenticated;
        """,
        "sql/tests/access.rls": """
        table public.notes
          owner owner_id
          read owner
          write owner
        """,
        // Only the writer's own happy path: nothing tries another user's rows.
        "sql/tests/journal.scenario": """
        scenario a writer keeps a journal
          user alice
          as alice: insert into public.journal (entry) values ('day one')
            expect 1 row affected
          as alice: select entry from public.journal
            expect value day one
        """,
    ]

    func testAKilledAndASurvivingMutantOfAProject() throws {
        let dir = try folder(Self.project)
        let r = try CLI.run(
            ["mutate", "--json", "m.json", "--summary", "s.md", "--html", "m.html", "--min-score", "10"], directory: dir
        )
        XCTAssertEqual(r.code, 0, r.output)
        let all = try mutants(dir + "/m.json").mutants
        func find(_ table: String, _ policy: String, _ kind: String) throws -> [String: Any] {
            try XCTUnwrap(
                all.first {
                    $0["table"] as? String == table && $0["policy"] as? String == policy
                        && $0["kind"] as? String == kind
                },
                "\(table) \(policy) \(kind) in \(all)")
        }
        let killed = try find("public.notes", "own notes", "using-true")
        XCTAssertEqual(killed["status"] as? String, "killed")
        XCTAssertTrue((killed["killedBy"] as? String)?.contains("sql/tests/access.rls") == true, "\(killed)")
        let survived = try find("public.journal", "journal writers", "check-true")
        XCTAssertEqual(survived["status"] as? String, "survived")
        XCTAssertEqual(survived["file"] as? String, "sql/migrations/0001_app.sql")
        XCTAssertEqual(survived["line"] as? Int, 18)
        XCTAssertEqual(
            survived["suggestion"] as? String,
            "table public.journal\n  owner writer\n  read owner\n  insert owner\n  update nobody\n  delete nobody")
        XCTAssertTrue(
            (survived["pgtap"] as? String)?.contains(
                "select throws_ok($$ insert into public.journal (writer) values ('00000000-0000-0000-0000-00000000000a'::uuid) $$, '42501'"
            ) == true, "\(survived)")
        // An insert test needs no row of the owner's beforehand: it could hold the key written.
        XCTAssertFalse(
            (survived["pgtap"] as? String)?.contains("fill its other required columns") ?? true, "\(survived)")
        let reader = try find("public.journal", "journal readers", "using-true")
        XCTAssertEqual(reader["status"] as? String, "survived")
        XCTAssertEqual(reader["line"] as? Int, 20)
        // The function probe calls it on another user's note: without its check it clears it.
        let function = try XCTUnwrap(all.first { $0["kind"] as? String == "drop-caller-check" }, "\(all)")
        XCTAssertEqual(function["table"] as? String, "public.clear_note(note_id bigint)")
        XCTAssertEqual(function["status"] as? String, "killed", "\(function)")
        XCTAssertEqual(function["line"] as? Int, 22)
        XCTAssertTrue(r.stdout.contains("public.journal: 40% (2/5)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("public.notes: 100% (5/5)"), r.stdout)
        XCTAssertFalse(r.stdout.contains("storage.objects"), r.stdout)
        let summary = try String(contentsOfFile: dir + "/s.md", encoding: .utf8)
        XCTAssertTrue(summary.hasPrefix("## rlskit mutate: "), summary)
        XCTAssertTrue(summary.contains("journal writers"), summary)
        let html = try String(contentsOfFile: dir + "/m.html", encoding: .utf8)
        let firstKilled = try XCTUnwrap(html.range(of: "<tr class=\"killed\">"))
        let firstSurvivor = try XCTUnwrap(html.range(of: "<tr class=\"survived\">"))
        XCTAssertLessThan(firstSurvivor.lowerBound, firstKilled.lowerBound)

        let strict = try CLI.run(
            ["mutate", "--min-score", "99.5"], environment: ["GITHUB_ACTIONS": "true"], directory: dir)
        XCTAssertEqual(strict.code, 1, strict.output)
        XCTAssertTrue(
            strict.stdout.contains(
                "::warning file=sql/migrations/0001_app.sql,line=18,title=mutant survived%3A policy \"journal writers\" on public.journal::WITH CHECK replaced by true"
            ), strict.stdout)
    }

    func testMinScoreMustBeAPercentage() throws {
        let dir = try folder([:])
        for bad in ["abc", "101", "-1"] {
            let r = try CLI.run(["mutate", "--builtin", "--min-score", bad], directory: dir)
            XCTAssertEqual(r.code, 2, r.output)
            XCTAssertTrue(r.stderr.contains("--min-score must be a number from 0 to 100 (got '\(bad)')"), r.stderr)
        }
    }

    func testItRefusesADatabaseItDoesNotOwn() throws {
        let dir = try folder([:])
        let r = try CLI.run(
            ["mutate", "--builtin"], environment: ["DATABASE_URL": "postgresql://nobody@127.0.0.1:1/x"], directory: dir)
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertTrue(r.stderr.contains("runs only on the throwaway database"), r.stderr)
    }
}
