import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// On a database you give, users are signed up as GoTrue's role only where the connecting role
/// may switch to it; else as the connecting role, with one line saying so (issue 27).
final class SignUpRoleTests: XCTestCase {
    static let schema = """
        create table public.diary (id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id), entry text not null default 'entry');
        alter table public.diary enable row level security;
        grant select, insert, update, delete on public.diary to authenticated;
        grant all on public.diary to service_role;
        create policy own on public.diary for all to authenticated
          using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
        """

    static let access = "table public.diary\n  owner user_id\n  read owner\n  write owner\n"

    func run(on target: ConnectionString) throws -> TestReport {
        var input = HarnessInput()
        input.access = [try AccessFile.parse(Self.access, path: "diary.rls")]
        return try Harness.run(input, on: target)
    }

    /// A login that is no member of supabase_auth_admin (postgres on the newest platform): the
    /// checks run, users are signed up as it, and the report says so once.
    func testNonMemberSignsUpAsItselfWithOneNote() throws {
        let db = try StandIn.makeDatabase(prefix: "signuprole")
        let login = "rlskit_nomember_\(getpid())"
        defer {
            TestServer.drop(db.name)
            if let admin = try? TestServer.connect() { _ = try? admin.runScript("drop role if exists \(login)") }
        }
        _ = try db.conn.runScript(
            Self.schema + """

                create role \(login) login bypassrls;
                grant postgres, anon, authenticated, service_role to \(login);
                grant select, insert, delete on auth.users to \(login);
                """)
        var o = try db.connectionString.options()
        o["user"] = login
        let target = ConnectionString(
            o.map { "\($0.key)='\(TestServerQuote.escape($0.value))'" }.joined(separator: " "))
        let report = try run(on: target)
        let text = TestReportWriter.render(report, format: .text)
        XCTAssertTrue(
            report.passed,
            text + "\n" + report.outcomes.map { "\($0.name): \($0.message ?? "")" }.joined(separator: "\n"))
        let notes = report.notes.filter { $0.contains("not as supabase_auth_admin") }
        XCTAssertEqual(notes.count, 1, text)
        XCTAssertTrue(notes.first?.contains("\(login) is not a member of it") == true, text)
        XCTAssertTrue(notes.first?.contains("grant supabase_auth_admin to \(login)") == true, text)
    }

    /// A member (here a superuser) signs users up as supabase_auth_admin, with no note.
    func testMemberSignsUpAsGoTrueWithoutNote() throws {
        let db = try StandIn.makeDatabase(prefix: "signuprole")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(Self.schema)
        let report = try run(on: db.connectionString)
        XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))
        XCTAssertFalse(report.notes.contains { $0.contains("supabase_auth_admin") }, "\(report.notes)")
    }
}

enum TestServerQuote {
    static func escape(_ v: String) -> String {
        v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
