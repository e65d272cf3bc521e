import Foundation
import RLSKit
import TestSupport
import XCTest

final class SupabaseConfigTests: XCTestCase {
    /// A config.toml shaped like the CLI's template (our own text): settings rlskit uses among many it ignores.
    let sample = """
        project_id = "demo"

        [api]
        enabled = true
        port = 54321
        schemas = ["public", "app"]
        extra_search_path = ["public", "extensions"]
        max_rows = 1000
        auto_expose_new_tables = true

        [db]
        port = 54322
        major_version = 15

        [db.seed]
        enabled = true
        sql_paths = ["./seed.sql", "./seeds/*.sql"]

        [storage]
        enabled = true
        file_size_limit = "50MiB"

        [storage.buckets.avatars]
        public = true
        file_size_limit = "5MiB"
        allowed_mime_types = ["image/png", "image/jpeg"]
        objects_path = "./avatars"

        [storage.buckets.private-docs]
        public = false

        [auth]
        site_url = "env(SITE_URL)"

        [auth.hook.custom_access_token]
        enabled = true
        uri = "pg-functions://postgres/public/custom_access_token_hook"

        [auth.hook.send_sms]
        enabled = false
        """

    func testReadsTheSettingsThatShapeTheDatabase() throws {
        let c = try SupabaseConfig.parse(sample, path: "supabase/config.toml")
        XCTAssertEqual(c.exposedSchemas, ["public", "app", "graphql_public"])
        XCTAssertEqual(c.extraSearchPath, ["public", "extensions"])
        XCTAssertEqual(c.autoExposeNewTables, true)
        XCTAssertTrue(c.seedEnabled)
        XCTAssertEqual(c.seedPaths, ["./seed.sql", "./seeds/*.sql"])
        XCTAssertEqual(c.buckets.map(\.name), ["avatars", "private-docs"])
        XCTAssertEqual(
            c.buckets[0],
            .init(
                name: "avatars", isPublic: true, fileSizeLimit: 5 * 1_048_576,
                allowedMimeTypes: ["image/png", "image/jpeg"]))
        XCTAssertEqual(c.buckets[1].isPublic, false)
        XCTAssertNil(c.buckets[1].fileSizeLimit)
        XCTAssertEqual(c.customAccessTokenHook, "pg-functions://postgres/public/custom_access_token_hook")
        XCTAssertEqual(
            c.settingsRead,
            [
                "api.schemas", "api.extra_search_path", "api.auto_expose_new_tables", "db.seed.enabled",
                "db.seed.sql_paths", "storage.buckets.avatars.public", "storage.buckets.avatars.file_size_limit",
                "storage.buckets.avatars.allowed_mime_types", "storage.buckets.private-docs.public",
                "auth.hook.custom_access_token.enabled", "auth.hook.custom_access_token.uri",
            ])
    }

    func testDefaultsWhenTheFileSaysNothing() throws {
        let c = try SupabaseConfig.parse("project_id = \"x\"\n", path: "c.toml")
        XCTAssertNil(c.exposedSchemas)
        XCTAssertNil(c.autoExposeNewTables)
        XCTAssertTrue(c.seedEnabled)
        XCTAssertEqual(c.seedPaths, ["./seed.sql"])
        XCTAssertEqual(c.buckets, [])
        XCTAssertNil(c.customAccessTokenHook)
        let off = try SupabaseConfig.parse(
            "[auth.hook.custom_access_token]\nenabled = false\nuri = \"pg-functions://x\"\n", path: "c.toml")
        XCTAssertNil(off.customAccessTokenHook)
    }

    func testWrongTypesAreFileLineErrors() {
        func message(_ text: String) -> String? {
            do {
                _ = try SupabaseConfig.parse(text, path: "supabase/config.toml")
                return nil
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(
            message("[api]\nschemas = \"public\"\n"),
            "supabase/config.toml:2: [api] schemas must be an array of strings")
        XCTAssertEqual(
            message("[db.seed]\n\nenabled = \"yes\"\n"),
            "supabase/config.toml:3: [db.seed] enabled must be true or false")
        XCTAssertEqual(
            message("[storage.buckets.a]\nfile_size_limit = \"lots\"\n"),
            "supabase/config.toml:2: [storage.buckets.a] file_size_limit must be a size such as \"50MiB\"")
        XCTAssertEqual(message("[api\n"), "supabase/config.toml:1: expected ']' to close the table header")
    }

    func testSeedFilesInOrderWithGlobs() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/seeds", withIntermediateDirectories: true)
        for f in ["seed.sql", "seeds/b.sql", "seeds/a.sql", "seeds/readme.md"] {
            try "select 1;".write(toFile: dir + "/" + f, atomically: true, encoding: .utf8)
        }
        var c = try SupabaseConfig.parse(sample, path: dir + "/config.toml")
        XCTAssertEqual(
            c.seedFiles(supabaseDirectory: dir), [dir + "/seed.sql", dir + "/seeds/a.sql", dir + "/seeds/b.sql"])
        c.seedEnabled = false
        XCTAssertEqual(c.seedFiles(supabaseDirectory: dir), [])
        try "[db.seed]\nsql_paths = ['./missing.sql']\n".write(
            toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        XCTAssertEqual(try SupabaseConfig.load(supabaseDirectory: dir)?.seedFiles(supabaseDirectory: dir), [])
        XCTAssertEqual(
            try SupabaseConfig.load(supabaseDirectory: dir)?.unmatchedSeedPatterns(supabaseDirectory: dir),
            [dir + "/missing.sql"])
        XCTAssertNil(try SupabaseConfig.load(supabaseDirectory: dir + "/seeds"))
    }
}
