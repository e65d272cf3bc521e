import Foundation
import TestSupport
import XCTest

/// Where the platform refuses, the line says what the platform says: a table's parts (columns,
/// constraints, defaults, policies, new indexes) are the table's, "must be owner of table users".
final class PlatformMessagesCLITests: XCTestCase {
    var dirs: [String] = []
    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func testRefusalsNameTheTableAsPostgreSQLDoes() throws {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        try FileManager.default.createDirectory(atPath: dir + "/m", withIntermediateDirectories: true)
        // Allowed: a policy on a table of supautils' policy_grants.
        try "create policy \"own user\" on auth.users for select to authenticated using (id = auth.uid());\n".write(
            toFile: dir + "/m/0001_allowed.sql", atomically: true, encoding: .utf8)
        // As postgres, PostgreSQL refuses (postgres owns none of them and, as on the newest
        // platform, cannot switch to GoTrue's role); rlskit's guard, for what runs as that role,
        // words it as PostgreSQL does.
        let asAuth = ""
        let cases = [
            (asAuth, "alter table auth.users drop column phone_change_token;"),
            (asAuth, "create index on auth.users (created_at);"),
            (asAuth, "alter table auth.users alter column aud set default 'x';"),
            (asAuth, "alter table auth.users add constraint short_email check (length(email) < 300);"),
            (asAuth, "alter table auth.users drop constraint users_phone_key;"),
            ("", "create policy p on auth.flow_state for select using (true);"),
            ("", "create index on auth.users (created_at);"),
        ]
        for (k, (prefix, sql)) in cases.enumerated() {
            do {
                let file = dir + "/m/000\(2 + k)_refused.sql"
                try (prefix + sql + "\n").write(toFile: file, atomically: true, encoding: .utf8)
                let f = try CLI.run(["apply", "--dir", dir + "/m"], environment: ["TMPDIR": dir], directory: dir)
                XCTAssertEqual(f.code, 3, sql + "\n" + f.output)
                let table = sql.contains("flow_state") ? "flow_state" : "users"
                XCTAssertTrue(
                    f.stderr.contains(": must be owner of table \(table) (SQLSTATE 42501)"), sql + "\n" + f.stderr)
                XCTAssertTrue(f.stderr.contains("it would fail there too"), f.stderr)
                try FileManager.default.removeItem(atPath: file)
            }
        }
    }
}
