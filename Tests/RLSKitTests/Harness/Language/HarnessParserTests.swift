import Foundation
import TestSupport
import XCTest

@testable import RLSKit

final class HarnessParserTests: XCTestCase {
    func testAccessFileParses() throws {
        let a = try AccessFile.parse(
            """
            # intent
            expose public api
            table posts               # schema defaults to public
              owner author_id
              read anyone
              write owner
              delete nobody
              seed image_path = '{owner}/a#1.png'   # '#' inside quotes is not a comment
            bucket avatars
              read public
              write own-folder
            """, path: "a.rls")
        XCTAssertEqual(a.exposedSchemas, ["public", "api"])
        XCTAssertEqual(a.tables.count, 1)
        let t = a.tables[0]
        XCTAssertEqual(t.qualifiedName, "public.posts")
        XCTAssertEqual([t.insert, t.update, t.delete], [.owner, .owner, .nobody])
        XCTAssertEqual(t.seeds.first?.expression, "'{owner}/a#1.png'")
        XCTAssertEqual(a.buckets.first?.read, .public)
        XCTAssertEqual(a.buckets.first?.location.line, 9)
    }

    func testMalformedAccessFilesGiveOneLineWithFileAndLine() {
        let cases: [(String, String)] = [
            ("tabel posts\n", "a.rls:1: unknown line 'tabel'"),
            ("  owner id\n", "a.rls:1: indented 'owner' outside a block"),
            ("table posts\n  owner id\n  read everyone\n", "a.rls:3: unknown read value 'everyone'"),
            (
                "table posts\n  owner id\n  read anyone\n  write owner\n  colour red\n",
                "a.rls:5: unknown table setting 'colour'"
            ),
            ("table posts\n  read anyone\n  write owner\n", "a.rls:3: table public.posts has no 'owner' line"),
            ("table posts\n  owner id\n  write owner\n", "a.rls:1: table public.posts has no 'read' line"),
            ("table posts\n  owner id\n  read anyone\n", "a.rls:1: table public.posts does not say who may write"),
            ("table a.b.c\n", "a.rls:1: 'a.b.c' is not a table name"),
            ("table\n", "a.rls:1: write 'table schema.name'"),
            (
                "table posts\n  owner id\n  read anyone\n  write owner\ntable public.posts\n",
                "a.rls:5: table public.posts is declared twice"
            ),
            (
                "table posts\n  owner id\n  read anyone\n  write owner\n  seed nothing here\n",
                "a.rls:5: write 'seed column = SQL expression'"
            ),
            (
                "table posts\n  owner id\n  read anyone\n  write own-folder\n",
                "a.rls:4: unknown write value 'own-folder'"
            ),
            ("bucket avatars\n  read public\n", "a.rls:1: bucket avatars has no 'write' line"),
            ("bucket avatars\n  read public\n  write everyone\n", "a.rls:3: unknown write value 'everyone'"),
            ("bucket avatars\n  owner id\n", "a.rls:2: unknown bucket setting 'owner'"),
            ("expose\n", "a.rls:1: 'expose' needs schema names"),
            ("table posts\n  owner id x\n", "a.rls:2: 'owner' takes one column name"),
        ]
        for (text, prefix) in cases {
            XCTAssertThrowsError(try AccessFile.parse(text, path: "a.rls")) { e in
                let line = "\(e)"
                XCTAssertTrue(line.hasPrefix(prefix), "\(text.debugDescription) → \(line)")
                XCTAssertFalse(line.contains("\n"))
            }
        }
    }

    func testScenarioParses() throws {
        let s = try ScenarioFile.parse(
            """
            # comment
            scenario edits
              user alice {"full_name": "A"}
              user mallory claims {"app_metadata": {"role": "admin"}}
              as alice: update public.profiles
                set full_name = 'x' where id = '{alice}'
                expect 1 row affected
              as mallory: select 1
                expect value 1
                expect 1 row
              as anon: upload avatars {alice}/a.png
                expect denied by rls
              as service_role: select 'a', null
                expect row a | null
              as admin: select 1 union all select 2
                expect values 1 | 2
              as auth_admin: select 1/0
                expect sqlstate 22012
            """, path: "s.scenario")
        XCTAssertEqual(s.count, 1)
        XCTAssertEqual(s[0].users.map(\.name), ["alice", "mallory"])
        XCTAssertTrue(s[0].users[1].claims.contains("\"app_metadata\":{\"role\":\"admin\"}"))
        XCTAssertEqual(s[0].steps.count, 6)
        XCTAssertEqual(s[0].steps[0].text, "update public.profiles\nset full_name = 'x' where id = '{alice}'")
        XCTAssertEqual(s[0].steps[1].expectations, [.value("1"), .rowCount(1)])
        XCTAssertEqual(s[0].steps[3].expectations, [.row(["a", nil])])
        XCTAssertEqual(s[0].steps[5].expectations, [.sqlState("22012")])
        XCTAssertEqual(s[0].steps[5].location.line, 17)
    }

    func testMalformedScenariosGiveOneLineWithFileAndLine() {
        let cases: [(String, String)] = [
            ("as anon: select 1\n  expect ok\n", "s.scenario:1: 'as' before any 'scenario' line"),
            ("scenario\n", "s.scenario:1: 'scenario' needs a title"),
            ("scenario x\n", "s.scenario:1: scenario 'x' has no steps"),
            ("scenario x\n  as bob: select 1\n  expect ok\n", "s.scenario:2: unknown actor 'bob'"),
            ("scenario x\n  as anon: select 1\n", "s.scenario:2: step has no 'expect' line"),
            (
                "scenario x\n  as anon: select 1\n  as anon: select 2\n  expect ok\n",
                "s.scenario:2: step has no 'expect' line"
            ),
            ("scenario x\n  expect ok\n", "s.scenario:2: 'expect' without a step"),
            ("scenario x\n  as anon: select 1\n  expect maybe\n", "s.scenario:3: unknown expectation 'maybe'"),
            ("scenario x\n  as anon: select 1\n  expect sqlstate 4250\n", "s.scenario:3: unknown expectation"),
            ("scenario x\n  as anon: select 1\n  expect two rows\n", "s.scenario:3: unknown expectation"),
            (
                "scenario x\n  user alice {not json}\n  as alice: select 1\n  expect ok\n",
                "s.scenario:2: user_metadata of user 'alice' is not a JSON object"
            ),
            ("scenario x\n  user alice\n  user alice\n", "s.scenario:3: user 'alice' is declared twice"),
            ("scenario x\n  user anon\n", "s.scenario:2: 'anon' is a built-in actor"),
            (
                "scenario x\n  as anon: select 1\n  expect ok\n  user late\n",
                "s.scenario:4: declare users before the first step"
            ),
            ("scenario x\n  as anon:\n  expect ok\n", "s.scenario:2: step has no SQL"),
            (
                "scenario x\n  as anon: upload avatars\n  expect ok\n",
                "s.scenario:2: write 'upload <bucket> <object name>'"
            ),
            (
                "scenario x\n  as anon: select 1\n  expect ok\nscenario x\n",
                "s.scenario:4: scenario 'x' already exists at line 1"
            ),
            ("scenario x\n  select 1\n", "s.scenario:2: unexpected 'select'"),
        ]
        for (text, prefix) in cases {
            XCTAssertThrowsError(try ScenarioFile.parse(text, path: "s.scenario")) { e in
                let line = "\(e)"
                XCTAssertTrue(line.hasPrefix(prefix), "\(text.debugDescription) → \(line)")
                XCTAssertFalse(line.contains("\n"))
            }
        }
    }

    func testRandomAndTruncatedInputNeverCrash() throws {
        let base =
            try String(contentsOfFile: OurSchemaPath.tests + "/access.rls", encoding: .utf8)
            + (try String(contentsOfFile: OurSchemaPath.tests + "/profiles.scenario", encoding: .utf8))
        var rng = SeededGenerator.printed(20_261_201)
        for n in stride(from: 0, to: base.count, by: 7) {
            let cut = String(base.prefix(n))
            _ = try? AccessFile.parse(cut, path: "x")
            _ = try? ScenarioFile.parse(cut, path: "x")
        }
        let alphabet = Array("tablebucket owner read write seed scenario user as: expect {}\"'#=|\n\t 0123456789")
        for _ in 0..<300 {
            let s = String((0..<Int.random(in: 0...200, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            _ = try? AccessFile.parse(s, path: "x")
            _ = try? ScenarioFile.parse(s, path: "x")
        }
    }

    func testImpersonationIsExactlyTheDataAPIs() {
        let u = HarnessActor.user("A", metadata: "{\"role\":\"admin\"}")
        let sql = u.impersonation()
        XCTAssertTrue(
            sql.hasPrefix(
                "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', '{\"aud\":\"authenticated\",\"role\":\"authenticated\",\"sub\":\"\(u.uid)\""
            ))
        for cleared in [
            "request.jwt.claim.sub", "request.jwt.claim.role", "request.jwt.claim.email", "request.jwt.claim",
        ] {
            XCTAssertTrue(sql.contains("set_config('\(cleared)', '', true)"), cleared)
        }
        XCTAssertTrue(u.claims.contains("\"user_metadata\":{\"role\":\"admin\"}"))
        XCTAssertTrue(u.claims.contains("\"app_metadata\":{\"provider\":\"email\""))
        XCTAssertTrue(
            u.claims.contains("\"is_anonymous\":false") && u.claims.contains("\"exp\":")
                && u.claims.contains("\"email\":"))
        let storage = u.impersonation(storage: "storage.object.upload")
        XCTAssertTrue(storage.contains("set_config('request.jwt.claim.sub', '\(u.uid)', true)"))
        XCTAssertTrue(storage.contains("set_config('request.jwt.claim.role', 'authenticated', true)"))
        XCTAssertTrue(storage.contains("set_config('storage.operation', 'storage.object.upload', true)"))
        XCTAssertTrue(storage.contains("set_config('storage.allow_delete_query', 'true', true)"))
        XCTAssertTrue(
            HarnessActor.anon.impersonation().contains("set_config('request.jwt.claims', '{\"role\":\"anon\""))
    }

    func testClaimAttackMetadataFollowsThePolicy() {
        let texts = [
            "(((auth.jwt() -> 'user_metadata'::text) ->> 'role'::text) = 'admin'::text)",
            "select coalesce((auth.jwt() -> 'user_metadata' ->> 'is_admin')::boolean, false)",
        ]
        XCTAssertTrue(ClaimAttack.readsClaims(texts))
        XCTAssertEqual(ClaimAttack.metadata(for: texts), "{\"is_admin\":true,\"role\":\"admin\"}")
        XCTAssertFalse(ClaimAttack.readsClaims(["(( SELECT auth.uid() AS uid) = id)"]))
    }
}

enum OurSchemaPath {
    static var tests: String {
        StandIn.root.path + "/sql/tests"
    }
}
