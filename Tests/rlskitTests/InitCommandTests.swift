import Foundation
import Postgres
import TestSupport
import XCTest

/// `rlskit init` as a user runs it in a project: the draft, the refusal while questions are
/// open, the answered file passing `rlskit test`, and its refusals and exit codes.
final class InitCommandTests: ScratchTestCase {
    static let migration = """
        create table public.notes (
          id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id),
          body text not null
        );
        create table public.plans (id bigint generated always as identity primary key, name text not null);
        alter table public.notes enable row level security;
        alter table public.plans enable row level security;
        grant select on public.plans to anon;
        grant select, insert, update, delete on public.notes, public.plans to authenticated;
        grant all on public.notes, public.plans to service_role;
        create policy "own notes" on public.notes for all to authenticated
          using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
        create policy "price list" on public.plans for select to anon, authenticated using (true);
        """

    func project() throws -> String {
        try folder(["supabase/migrations/20260101000000_app.sql": Self.migration])
    }

    func answer(_ text: String) -> String {
        var block = ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if !line.hasPrefix(" ") && !line.hasPrefix("#") && !line.isEmpty { block = String(line) }
            guard line.hasPrefix("  read ?") || line.hasPrefix("  write ?") else { return String(line) }
            let key = line.hasPrefix("  read") ? "read" : "write"
            let who = block == "table public.notes" ? "owner" : key == "read" ? "anyone" : "nobody"
            return "  \(key) \(who)"
        }.joined(separator: "\n")
    }

    func testDraftRefusedUntilAnsweredThenTested() throws {
        let dir = try project()
        let path = dir + "/supabase/tests/access.rls"
        let r = try CLI.run(["init"], directory: dir)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(
            r.stderr.contains(
                "wrote supabase/tests/access.rls: 2 tables, 0 membership tables, 0 buckets, 4 questions to answer"),
            r.stderr)
        XCTAssertTrue(r.stderr.contains("then run: rlskit test"), r.stderr)
        let draft = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(draft.contains("table public.notes\n  owner user_id "), draft)
        XCTAssertTrue(draft.contains("#   policy \"own notes\" for all to authenticated using"), draft)

        let lines = draft.split(separator: "\n", omittingEmptySubsequences: false)
        let first = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  read ?") })
        let refused = try CLI.run(["test"], directory: dir)
        XCTAssertEqual(refused.code, 2, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "supabase/tests/access.rls:\(first + 1): table public.notes: 'read' is not answered yet: replace '?' with who may read"
            ), refused.stderr)

        let checked = try CLI.run(["check"], directory: dir)
        XCTAssertEqual(checked.code, 2, checked.output)
        XCTAssertTrue(
            checked.stderr.contains(
                "supabase/tests/access.rls:\(first + 1): table public.notes: 'read' is not answered yet"),
            checked.stderr)

        try answer(draft).write(toFile: path, atomically: true, encoding: .utf8)
        let tested = try CLI.run(["test"], directory: dir)
        XCTAssertEqual(tested.code, 0, tested.output)
        XCTAssertTrue(tested.stdout.contains("public.notes"), tested.stdout)
        XCTAssertTrue(tested.stdout.contains("public.plans"), tested.stdout)

        // An existing file is never replaced without --force.
        let again = try CLI.run(["init"], directory: dir)
        XCTAssertEqual(again.code, 2, again.output)
        XCTAssertEqual(
            again.stderr.split(separator: "\n").first,
            "rlskit: supabase/tests/access.rls already exists: pass --force to replace it, or --output another file")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), answer(draft))
        let forced = try CLI.run(["init", "--force"], directory: dir)
        XCTAssertEqual(forced.code, 0, forced.output)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), draft)
    }

    func testGivenDatabaseToStandardOutput() throws {
        let db = try TestServer.makeDatabase(prefix: "init")
        dbs.append(db.name)
        let conn = try PostgresConnection(db.connectionString)
        try StandIn.install(conn)
        _ = try conn.runScript(Self.migration)
        let env = ["DATABASE_URL": db.connectionString.raw]
        let r = try CLI.run(["init", "--output", "-"], environment: env)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.hasPrefix("# A first access file"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\ntable public.plans\n"), r.stdout)
        XCTAssertTrue(r.stderr.contains("wrote the access file to standard output"), r.stderr)
        XCTAssertFalse(r.output.contains(db.connectionString.raw))
        // Schemas that do not exist, or hold no RLS table: nothing to draft, and nothing written.
        let dir = try folder([:])
        let missing = try CLI.run(["init", "--exposed-schemas", "nosuch"], environment: env, directory: dir)
        XCTAssertEqual(missing.code, 2, missing.output)
        XCTAssertEqual(
            missing.stderr,
            "rlskit: exposed schema nosuch does not exist in this database: name existing schemas in --exposed-schemas\n"
        )
        _ = try conn.query("create schema api")
        let none = try CLI.run(["init", "--exposed-schemas", "api"], environment: env, directory: dir)
        XCTAssertEqual(none.code, 2, none.output)
        XCTAssertTrue(
            none.stderr.hasPrefix("rlskit: no RLS table in the exposed schemas (api) and no bucket"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/supabase"))
    }

    func testHelpAndUserErrors() throws {
        let help = try CLI.run(["init", "--help"])
        XCTAssertEqual(help.code, 0)
        for s in [
            "usage: rlskit init [options]", "--output FILE", "--force", "--database-url URL", "--exposed-schemas",
        ] {
            XCTAssertTrue(help.stdout.contains(s), help.stdout)
        }
        XCTAssertTrue(try CLI.run(["--help"]).stdout.contains("  init      draft a first access file"))
        let dir = try folder([:])
        let badOutput = try CLI.run(["init", "--output", "no/such/dir/a.rls"], directory: dir)
        XCTAssertEqual(badOutput.code, 2, badOutput.output)
        XCTAssertTrue(
            badOutput.stderr.hasPrefix("rlskit: cannot write no/such/dir/a.rls: directory no/such/dir does not exist"),
            badOutput.stderr)
        try FileManager.default.createDirectory(
            atPath: dir + "/supabase/tests/access.rls", withIntermediateDirectories: true)
        let isDir = try CLI.run(["init", "--force"], directory: dir)
        XCTAssertEqual(isDir.code, 2, isDir.output)
        XCTAssertEqual(isDir.stderr, "rlskit: cannot write supabase/tests/access.rls: it is a directory\n")
        let unreachable = try CLI.run(
            ["init", "--output", "-"],
            environment: ["DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"],
            directory: dir)
        XCTAssertEqual(unreachable.code, 3, unreachable.output)
        XCTAssertEqual(unreachable.stdout, "")
    }
}
