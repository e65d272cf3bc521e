import Foundation
import TestSupport
import XCTest

/// The server's WARNINGs raised by migrations are shown with file and line; NOTICEs are not.
final class ServerWarningsCLITests: XCTestCase {
    static let migration = """
        create table public.things (id int);
        do $$ begin raise notice 'a routine notice'; end $$;
        do $$
        begin
          raise warning 'this migration did something odd (%)', 42;
        end $$;
        revoke execute on function pg_catalog.now() from anon;

        """

    func project() throws -> String {
        let tmp = try CLI.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: tmp + "/supabase/migrations", withIntermediateDirectories: true)
        try Self.migration.write(
            toFile: tmp + "/supabase/migrations/20240101000000_a.sql", atomically: true, encoding: .utf8)
        try "\n\ndo $$ begin raise warning 'one statement, so its line is known'; end $$;\n".write(
            toFile: tmp + "/supabase/migrations/20240102000000_b.sql", atomically: true, encoding: .utf8)
        try """
        -- rlskit:no-transaction
        create table public.more (id int);
        do $$ begin raise warning 'one statement at a time'; end $$;

        """.write(toFile: tmp + "/supabase/migrations/20240103000000_c.sql", atomically: true, encoding: .utf8)
        try "revoke select on pg_catalog.pg_namespace from anon;\n".write(
            toFile: tmp + "/supabase/migrations/20240104000000_d.sql", atomically: true, encoding: .utf8)
        return tmp
    }

    func assertWarnings(_ output: String, file: StaticString = #filePath, line: UInt = #line) {
        let path = "supabase/migrations/20240101000000_a.sql"
        // Several statements in one message: the line is not known for certain, so not given.
        XCTAssertTrue(
            output.contains("warning: \(path): this migration did something odd (42)"), output, file: file, line: line)
        XCTAssertNotNil(
            output.range(
                of: #"warning: \#(path)(:7)?: no privileges could be revoked for "now""#, options: .regularExpression
            ),
            output, file: file, line: line)
        XCTAssertTrue(
            output.contains(
                "warning: supabase/migrations/20240102000000_b.sql:3: one statement, so its line is known"),
            output, file: file, line: line)
        XCTAssertTrue(
            output.contains("warning: supabase/migrations/20240103000000_c.sql:3: one statement at a time"), output,
            file: file, line: line)
        // One warning per column of pg_namespace (postgres holds no grant option there): one line.
        let d = "warning: supabase/migrations/20240104000000_d.sql:1: no privileges could be revoked for column "
        XCTAssertEqual(output.components(separatedBy: d).count, 2, output, file: file, line: line)
        XCTAssertNotNil(
            output.range(of: #"of relation "pg_namespace" \(and \d+ more like it\)"#, options: .regularExpression),
            output,
            file: file, line: line)
        XCTAssertFalse(output.contains("a routine notice"), output, file: file, line: line)
    }

    func testApplyShowsWarnings() throws {
        let tmp = try project()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(["apply"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 0, r.output)
        assertWarnings(r.stdout)
    }

    func testCheckShowsWarningsInItsSummary() throws {
        let tmp = try project()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        // The audit finds the table without RLS (exit 1); the warnings are shown all the same.
        let r = try CLI.run(
            ["check", "--allow-empty", "--json", tmp + "/check.json"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        assertWarnings(r.stdout)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let warning = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("warning: ") })
        let apply = try XCTUnwrap(lines.firstIndex { $0.contains("✓ apply") })
        XCTAssertLessThan(warning, apply, "the warnings come just before the phases")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp + "/check.json")))
        let warnings = try XCTUnwrap((json as? [String: Any])?["warnings"] as? [String])
        XCTAssertEqual(warnings, lines.filter { $0.hasPrefix("warning: supabase/migrations/") })
        XCTAssertEqual(warnings.count, 6, "\(warnings)")
    }
}
