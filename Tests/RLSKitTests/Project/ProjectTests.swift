import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// The project's settings are decided in one place, with where each came from.
final class ProjectTests: ScratchTestCase {
    static let block = "table notes\n  owner user_id\n  read owner\n  write owner\n"

    func project(_ files: [String: String], exposed: Setting<[String]>? = nil) throws -> Project {
        let dir = try folder(files)
        var given = Project.Given(migrations: .directory(dir + "/supabase/migrations"))
        let tests = files.keys.filter { $0.hasSuffix(".rls") }.map { dir + "/" + $0 }
        if !tests.isEmpty { given.tests = try TestSuite.load(tests) }
        given.exposedSchemas = exposed
        return try Project.resolve(given)
    }

    func testConfigSchemasAndExposeLinesJoinUnlessGiven() throws {
        let files = [
            "supabase/migrations/001_t.sql": "select 1;",
            "supabase/config.toml": "[api]\nschemas = [\"api\"]\n",
            "supabase/tests/access.rls": "expose kit\n" + ProjectTests.block,
        ]
        let p = try project(files)
        XCTAssertEqual(p.exposedSchemas?.value, ["api", "public", "graphql_public", "kit"])
        guard case .file(let from) = p.exposedSchemas?.source else { return XCTFail("\(String(describing: p))") }
        XCTAssertTrue(from.contains("/supabase/config.toml and /"), from)
        XCTAssertTrue(from.hasSuffix("/supabase/tests/access.rls"), from)
        XCTAssertEqual(p.audit.exposed?.names, p.exposedSchemas?.value)
        XCTAssertEqual(p.harness(HarnessOptions(), exposure: nil).exposedSchemas, p.exposedSchemas?.value)

        let given = try project(files, exposed: Setting(["public"], from: .given("--exposed-schemas")))
        XCTAssertEqual(given.exposedSchemas?.value, ["public"])
        XCTAssertEqual(given.audit.exposed?.source, "--exposed-schemas")
    }

    func testNothingSaidLeavesTheSchemasToTheDatabase() throws {
        let p = try project(["supabase/migrations/001_t.sql": "select 1;"])
        XCTAssertNil(p.exposedSchemas)
        XCTAssertNil(p.audit.exposed)
        XCTAssertEqual(p.extraSearchPath, Setting(["public", "extensions"], from: .platformDefault))
        let only = try project([
            "supabase/migrations/001_t.sql": "select 1;", "t/a.rls": "expose api\n" + ProjectTests.block,
        ])
        XCTAssertEqual(only.exposedSchemas?.value, ["api"])
    }

    func testSearchPathAndHookComeFromConfig() throws {
        let p = try project([
            "supabase/migrations/001_t.sql": "select 1;",
            "supabase/config.toml": """
            [api]
            extra_search_path = ["kit"]
            [auth.hook.custom_access_token]
            enabled = true
            uri = "pg-functions://postgres/public/hook"
            """,
        ])
        XCTAssertEqual(p.extraSearchPath.value, ["kit"])
        XCTAssertEqual(p.accessTokenHook?.description, "public.hook")
        let harness = p.harness(HarnessOptions(), exposure: ExposedSchemas(names: ["public"], origin: .platformDefault))
        XCTAssertEqual(harness.extraSearchPath, ["kit"])
        XCTAssertEqual(harness.accessTokenHook, p.accessTokenHook)
        XCTAssertEqual(
            p.settingLines(exposure: ExposedSchemas(names: ["public"], origin: .platformDefault)),
            [
                "exposed schemas: public (default: no pgrst.db_schemas setting)",
                "extra search path: kit (\(p.supabase!.config!.path))",
                "access token hook: public.hook (\(p.accessTokenHook!.source))",
            ])
    }

    /// A given database is never seeded: its owner did that.
    func testSeedsAndBucketsOnlyOnAThrowawayDatabase() throws {
        let p = try project([
            "supabase/migrations/001_t.sql": "select 1;",
            "supabase/seed.sql": "select 1;",
            "supabase/config.toml": "[storage.buckets.docs]\npublic = false\n",
        ])
        let throwaway = try p.migrator(throwaway: true)
        XCTAssertEqual(throwaway.seeds.map { ($0.path as NSString).lastPathComponent }, ["seed.sql"])
        XCTAssertEqual(throwaway.buckets.map(\.name), ["docs"])
        XCTAssertNotNil(throwaway.grants)
        let given = try p.migrator(throwaway: false)
        XCTAssertEqual(given.seeds, [])
        XCTAssertEqual(given.buckets, [])
        XCTAssertNil(given.grants)
    }
}
