import Foundation
import Postgres
import TestSupport
import XCTest

/// Every command reads the same project the same way: one project, every command, one answer
/// to "which schemas does the API serve" and where that answer came from.
final class ProjectAgreementCLITests: ScratchTestCase {
    static let migration = """
        create schema api;
        create schema kit;
        grant usage on schema api, kit to anon, authenticated;
        create table kit.notes (id uuid primary key default gen_random_uuid(), owner uuid references auth.users (id));
        alter table kit.notes enable row level security;
        create policy "own" on kit.notes for all to authenticated using (owner = (select auth.uid()));
        grant select, insert, update, delete on kit.notes to authenticated;
        create table api.open (id int);
        grant select on api.open to anon;
        create table public.hidden (id int);
        alter table public.hidden enable row level security;
        """
    static let access = "expose kit\ntable kit.notes\n  owner owner\n  read owner\n  write owner\n"
    static let expected =
        "exposed schemas: api, public, graphql_public, kit (supabase/config.toml and supabase/tests/notes.rls)"

    func makeProject(config: String = "[api]\nschemas = [\"api\"]\n") throws -> String {
        try folder([
            "supabase/migrations/20261201000000_a.sql": Self.migration,
            "supabase/config.toml": config,
            "supabase/tests/notes.rls": Self.access,
        ])
    }

    func testEveryCommandAgreesOnAThrowawayServer() throws {
        let dir = try makeProject()
        let env = ["TMPDIR": dir]
        let check = try CLI.run(["check"], environment: env, directory: dir)
        XCTAssertTrue(check.stdout.contains("  " + Self.expected), check.output)
        XCTAssertTrue(
            check.stdout.contains("exposed schemas checked: api, public, graphql_public, kit ("), check.stdout)
        XCTAssertTrue(check.stdout.contains("api.open"), check.stdout)  // the audit looked at api

        let test = try CLI.run(["test"], environment: env, directory: dir)
        XCTAssertEqual(test.code, 0, test.output)
        XCTAssertTrue(test.stdout.contains(Self.expected), test.output)

        // Behaviour, not only the line: public (config.toml's) is exposed to the harness too, so
        // --strict finds its undeclared RLS table in both commands.
        for command in ["test", "check"] {
            let strict = try CLI.run([command, "--strict"], environment: env, directory: dir)
            XCTAssertEqual(strict.code, 1, strict.output)
            XCTAssertTrue(strict.stdout.contains("public.hidden has declared intent"), strict.output)
        }

        let draft = try CLI.run(["init", "--output", "-"], environment: env, directory: dir)
        XCTAssertEqual(draft.code, 0, draft.output)
        XCTAssertTrue(draft.stdout.contains("\nexpose api public graphql_public kit\n"), draft.stdout)
        XCTAssertTrue(draft.stdout.contains("table kit.notes"), draft.stdout)

        // The option overrides both files, in every command alike.
        let given = try CLI.run(["check", "--exposed-schemas", "kit"], environment: env, directory: dir)
        XCTAssertTrue(given.stdout.contains("  exposed schemas: kit (--exposed-schemas)"), given.output)
        XCTAssertFalse(given.stdout.contains("api.open"), given.stdout)
        let givenTest = try CLI.run(["test", "--exposed-schemas", "kit"], environment: env, directory: dir)
        XCTAssertTrue(givenTest.stdout.contains("exposed schemas: kit (--exposed-schemas)"), givenTest.output)
    }

    func testEveryCommandAgreesOnAGivenDatabase() throws {
        let dir = try makeProject()
        let db = try TestServer.makeDatabase(prefix: "agree")
        dbs.append(db.name)
        let url = db.connectionString.raw
        let apply = try CLI.run(["apply", "--database-url", url], directory: dir)
        XCTAssertEqual(apply.code, 0, apply.output)

        let audit = try CLI.run(["audit", "--database-url", url], directory: dir)
        let checked =
            "exposed schemas checked: api, public, graphql_public, kit "
            + "(supabase/config.toml and supabase/tests/notes.rls)"
        XCTAssertTrue(audit.stdout.contains(checked), audit.output)
        let check = try CLI.run(["check", "--database-url", url], directory: dir)
        XCTAssertTrue(check.stdout.contains(checked), check.output)
        XCTAssertTrue(check.stdout.contains("  " + Self.expected), check.output)
        let test = try CLI.run(["test", "--database-url", url], directory: dir)
        XCTAssertTrue(test.stdout.contains(Self.expected), test.output)
        let lock = try CLI.run(["snapshot", "--database-url", url], directory: dir)
        XCTAssertEqual(lock.code, 0, lock.output)
        XCTAssertTrue(lock.stdout.contains("exposed schemas: api, public, graphql_public, kit\n"), lock.stdout)
        try lock.stdout.write(toFile: dir + "/policy.lock", atomically: true, encoding: .utf8)
        let diff = try CLI.run(["diff", "--database-url", url, "policy.lock"], directory: dir)
        XCTAssertEqual(diff.code, 0, diff.output)
    }

    /// With neither file saying, every command asks the database's pgrst.db_schemas.
    func testTheDatabaseDecidesWhenNoFileSays() throws {
        let dir = try folder([
            "supabase/migrations/20261201000000_a.sql": Self.migration
                + "\nalter role authenticator set pgrst.db_schemas = 'kit, api';\n",
            "supabase/tests/notes.rls": "table kit.notes\n  owner owner\n  read owner\n  write owner\n",
        ])
        let env = ["TMPDIR": dir]
        let check = try CLI.run(["check"], environment: env, directory: dir)
        let line = "exposed schemas: kit, api (pgrst.db_schemas of role authenticator)"
        XCTAssertTrue(check.stdout.contains("  " + line), check.output)
        let test = try CLI.run(["test"], environment: env, directory: dir)
        XCTAssertTrue(test.stdout.contains(line), test.output)
    }
}
