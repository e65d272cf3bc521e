import Foundation
import TestSupport
import XCTest

/// After its verdict, `check` prints one line saying what to do next: a project without access
/// files is pointed to `rlskit init` (whether it has pgTAP tests or none), one with access files
/// to its failures, or to CI once it passes.
final class NextStepCLITests: XCTestCase {
    static let migration = """
        create table public.notes (id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id), body text not null default 'x');
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to authenticated;
        grant all on public.notes to service_role;
        create policy own on public.notes for all to authenticated
          using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
        """

    static let access = "table public.notes\n  owner user_id\n  read owner\n  write owner\n"

    /// `check` in a project folder holding `files`; its last line of standard output.
    func lastLine(_ files: [String: String], code: Int32) throws -> String {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let all = files.merging(["supabase/migrations/0001_notes.sql": Self.migration], uniquingKeysWith: { a, _ in a })
        for (path, text) in all {
            let full = tmp + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        let r = try CLI.run(["check", "--allow-empty"], environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, code, r.output)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertTrue(lines.dropLast().last?.contains(" in ") == true, "the verdict comes right before: \(r.stdout)")
        XCTAssertEqual(lines.count { $0.hasPrefix("next: ") }, 1, r.stdout)
        return String(lines.last ?? "")
    }

    func testWithoutTestsPointsToInit() throws {
        let line = try lastLine([:], code: 0)
        XCTAssertEqual(
            line,
            "next: rlskit init drafts an access file (supabase/tests/access.rls) from your policies that tests every RLS table as each kind of user: answer its ?s, then run rlskit check again"
        )
    }

    /// pgTAP tests that pass are not the end of it: every table as every kind of user is.
    func testPgTAPTestsWithoutAccessFilesPointToInit() throws {
        let pgtap =
            "begin;\nselect plan(1);\nselect has_table('public', 'notes', 'notes exists');\nselect * from finish();\nrollback;\n"
        let line = try lastLine(["supabase/tests/database/notes.test.sql": pgtap], code: 0)
        XCTAssertTrue(line.hasPrefix("next: your pgTAP tests ran as they are; rlskit init drafts an access file"), line)
    }

    func testPassingAccessFilesPointToCI() throws {
        let line = try lastLine(["supabase/tests/access.rls": Self.access], code: 0)
        XCTAssertEqual(line, "next: run rlskit check on every pull request (docs/ci.md)")
    }

    func testFailingAccessFilesPointToTheFailures() throws {
        let line = try lastLine(
            ["supabase/tests/access.rls": Self.access.replacing("read owner", with: "read anyone")], code: 1)
        XCTAssertTrue(line.hasPrefix("next: each ✗ above names the line that declared it"), line)
    }
}
