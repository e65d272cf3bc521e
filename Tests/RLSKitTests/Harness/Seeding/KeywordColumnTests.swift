import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Owner columns named after keywords the old partial list missed: each table is seeded and
/// tested, none skipped.
final class KeywordColumnTests: XCTestCase {
    static let columns = ["unique", "current_user", "window", "left", "full", "user", "between", "Owner Id"]

    func testOwnerColumnsNamedAfterKeywords() throws {
        var sql = ""
        var access = ""
        for (i, c) in Self.columns.enumerated() {
            let t = "public.kw\(i)"
            let col = SQL.ident(c, always: true)
            sql += """
                create table \(t) (id bigint generated always as identity primary key, \(col) uuid not null references auth.users (id), "order" text not null);
                alter table \(t) enable row level security;
                grant select, insert, update, delete on \(t) to authenticated;
                grant all on \(t) to service_role;
                create policy own on \(t) for all to authenticated using ((select auth.uid()) = \(col)) with check ((select auth.uid()) = \(col));

                """
            access += "\ntable \(t)\n  owner \(col)\n  read owner\n  write owner\n"
        }
        let db = try OurSchema.makeDatabase(extra: sql)
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "kw.rls")]
        let report = try Harness.run(input, options: HarnessOptions(), on: db.connectionString)
        for i in Self.columns.indices {
            let items = report.outcomes.filter { $0.suite == "public.kw\(i)" }
            XCTAssertGreaterThan(items.count, 5, "owner \(Self.columns[i]): \(report.notes)")
            XCTAssertEqual(
                items.filter { $0.status != .passed }.map { "\($0.name): \($0.message ?? "")" }, [],
                "owner \(Self.columns[i])")
        }
        XCTAssertEqual(report.count(.skipped), 0, "\(report.notes)")
        XCTAssertTrue(report.passed)
    }
}
