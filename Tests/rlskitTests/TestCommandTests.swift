import Foundation
import Postgres
import TestSupport
import XCTest

final class TestCommandTests: XCTestCase {
    var dbs: [String] = []
    var dirs: [String] = []
    override func tearDown() {
        for d in dbs { TestServer.drop(d) }
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func database(_ extra: String = "") throws -> String {
        let db = try OurSchema.makeDatabase(extra: extra)
        dbs.append(db.name)
        return db.connectionString.raw
    }

    func folder(_ files: [String: String]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (n, t) in files { try t.write(toFile: dir + "/" + n, atomically: true, encoding: .utf8) }
        return dir
    }

    var tests: String { OurSchema.root + "/sql/tests" }

    func testOurTestsPassOnAThrowawayServer() throws {
        let r = try CLI.run(["test"], directory: OurSchema.root)
        XCTAssertEqual(r.code, 0, r.output)
        XCTAssertTrue(r.stdout.contains("public.profiles  19 passed"), r.stdout)
        XCTAssertTrue(r.stdout.contains("coverage"), r.stdout)
        XCTAssertTrue(r.stdout.contains(", 0 failed"), r.stdout)
    }

    func testFailureShowsSQLActorExpectedAndActualAndExits1() throws {
        let url = try database(
            "drop policy \"Users delete their own posts\" on public.posts; create policy d on public.posts for delete to authenticated using (true);"
        )
        let r = try CLI.run(["test", "--database-url", url, tests + "/access.rls"])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("[A] A deletes B's row"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains(
                "public.posts · delete · as A: expected: nothing written (0 rows, denied by RLS or privilege, or refused by a RAISE); got: 1 row affected"
            ), r.stdout)
        XCTAssertTrue(r.stdout.contains("sql: delete from public.posts where author_id = '"), r.stdout)
    }

    func testAFunctionThatChangesAnotherUsersRowFailsTheRun() throws {
        let url = try database(
            """
            create function public.rename_profile(profile_id uuid, new_name text) returns void language sql
              security definer set search_path = '' as $$
              update public.profiles set full_name = new_name where id = profile_id $$;
            """)
        let r = try CLI.run(["test", "--database-url", url, tests + "/access.rls"])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(
            r.stdout.contains(
                "functions · call public.rename_profile(uuid, text) · as B, with arguments from A's row: expected: no write ("
            ), r.stdout)
        XCTAssertTrue(r.stdout.contains("; got: wrote public.profiles: 1 updated"), r.stdout)
        XCTAssertTrue(r.stdout.contains("call public.rename_profile(uuid, text) · as anon"), r.stdout)
        XCTAssertFalse(r.stdout.contains("call public.rename_profile(uuid, text) · as A,"), r.stdout)
    }

    func testReportFormatsAndOutputFile() throws {
        let url = try database()
        let dir = try folder([:])
        for (format, marker) in [
            ("junit", "<testsuites name=\"rlskit\""), ("tap", "TAP version 13"), ("json", "\"outcomes\""),
        ] {
            let out = dir + "/report." + format
            let r = try CLI.run([
                "test", "--database-url", url, "--format", format, "--output", out, "--jobs", "2", tests,
            ])
            XCTAssertEqual(r.code, 0, r.output)
            let text = try String(contentsOfFile: out, encoding: .utf8)
            XCTAssertTrue(text.contains(marker), format)
            XCTAssertTrue(text.contains(format == "junit" ? "A deletes B&apos;s row" : "A deletes B's row"), format)
        }
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/report.json")))
            as? [String: Any]
        XCTAssertEqual(json?["failed"] as? Int, 0)
        let tap = try CLI.run(["test", "--database-url", url, "--format", "tap", tests + "/profiles.scenario"])
        XCTAssertTrue(tap.stdout.hasPrefix("TAP version 13\n1..14\n"), tap.stdout)
    }

    func testMalformedFilesExit2WithOneLineBeforeConnecting() throws {
        // The URL points nowhere: a malformed file must be reported before any connection.
        let nowhere = "postgresql://u:secret-pw@127.0.0.1:1/x?connect_timeout=2"
        let cases: [(String, String, String)] = [
            (
                "access.rls", "table posts\n  owner author_id\n  read sometimes\n  write owner\n",
                "access.rls:3: unknown read value 'sometimes'"
            ),
            ("a.scenario", "scenario x\n  as nobody: select 1\n  expect ok\n", "a.scenario:2: unknown actor 'nobody'"),
            (
                "b.scenario", "scenario x\n  as anon: select 1\n  expect perhaps\n",
                "b.scenario:3: unknown expectation 'perhaps'"
            ),
        ]
        for (name, text, message) in cases {
            let dir = try folder([name: text, "ok.scenario": "scenario fine\n  as anon: select 1\n  expect ok\n"])
            let r = try CLI.run(["test", "--database-url", nowhere, dir])
            XCTAssertEqual(r.code, 2, r.output)
            XCTAssertEqual(r.stdout, "")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: " + dir + "/" + message), r.stderr)
            XCTAssertFalse(r.output.contains("secret-pw"))
        }
        let bad = try CLI.run(["test", "--jobs", "0", tests])
        XCTAssertEqual(bad.code, 2)
        let unknown = try CLI.run(["test", "--database-url", nowhere, "/nonexistent/x.rls"])
        XCTAssertEqual(unknown.code, 2)
    }

    func testUnreachableServerExits3() throws {
        let r = try CLI.run([
            "test", "--database-url", "postgresql://u:secret-pw@127.0.0.1:1/x?connect_timeout=2", tests,
        ])
        XCTAssertEqual(r.code, 3, r.output)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertFalse(r.output.contains("secret-pw"))
    }

    func testStrictFailsOnUndeclaredRLSTable() throws {
        let url = try database(
            "create table public.secrets (id int); alter table public.secrets enable row level security;")
        let relaxed = try CLI.run(["test", "--database-url", url, tests + "/access.rls"])
        XCTAssertEqual(relaxed.code, 0, relaxed.output)
        XCTAssertTrue(
            relaxed.stdout.contains(
                "uncovered: RLS enabled but no intent declared (--strict fails on these): public.secrets"),
            relaxed.stdout)
        let strict = try CLI.run(["test", "--strict", "--database-url", url, tests + "/access.rls"])
        XCTAssertEqual(strict.code, 1, strict.output)
        XCTAssertTrue(
            strict.stdout.contains("public.secrets has row level security but no block in the access file"),
            strict.stdout)
    }

    /// A declared table nobody could test is a failure (exit 1), never a green run;
    /// --allow-untested turns it into a skip.
    func testUntestableDeclaredTableFailsUnlessAllowed() throws {
        let url = try database(
            """
            create table public.parents (id int primary key, shape point not null);
            create table public.children (owner_id uuid not null references auth.users (id), parent_id int not null references public.parents (id));
            alter table public.children enable row level security;
            """)
        let dir = try folder(["c.rls": "table public.children\n  owner owner_id\n  read owner\n  write owner\n"])
        let r = try CLI.run(["test", "--database-url", url, dir])
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.hasSuffix("0 passed, 1 failed\n"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains(
                "not covered: public.children(parent_id) needs a row in public.parents, whose column shape of type point rlskit cannot fill"
            ), r.stdout)
        let allowed = try CLI.run(["test", "--allow-untested", "--database-url", url, dir])
        XCTAssertEqual(allowed.code, 0, allowed.output)
        XCTAssertTrue(allowed.stdout.hasSuffix("0 passed, 0 failed, 1 skipped\n"), allowed.stdout)
        let check = try CLI.run(["check", "--database-url", url, "--tests", dir])
        XCTAssertEqual(check.code, 1, check.output)
        XCTAssertTrue(check.stdout.contains("✗ test      0 passed, 1 failed"), check.stdout)
    }
}
