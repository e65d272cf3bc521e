import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Cross-owner reads of owner tables that hold nothing sensitive: a hole only where the
/// policies' names say the rows are their owner's and none is public by name or by `true`.
final class InferredReadTests: XCTestCase {
    static func notes(_ policies: String) -> String {
        """
        create table public.notes (id bigint generated always as identity primary key,
          user_id uuid not null references auth.users, body text);
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to anon, authenticated;
        create policy "Users can write their own notes" on public.notes for insert to authenticated
          with check (user_id = (select auth.uid()));
        \(policies)
        """
    }

    func attack(_ sql: String) throws -> InferredAttack.Result {
        let db = try StandIn.makeDatabase(prefix: "inferredread")
        defer {
            db.conn.close()
            TestServer.drop(db.name)
        }
        _ = try db.conn.runScript(sql)
        return try InferredAttack.run(
            schemas: ["public"], declared: [], options: HarnessOptions(), on: db.connectionString, ownsDatabase: true)
    }

    func reads(_ r: InferredAttack.Result) -> [Finding] {
        r.findings.filter { $0.object.name == "notes" && $0.proof?.request.hasPrefix("GET") == true }
    }

    func testAnOwnNamedPolicyThatLetsAnySignedInUserReadIsAHole() throws {
        let r = try attack(
            Self.notes(
                """
                create policy "Users can view their own notes" on public.notes for select to authenticated
                  using ((select auth.uid()) is not null);
                """))
        let f = reads(r)
        XCTAssertEqual(f.count, 1, r.findings.map(\.detail).joined(separator: "\n"))
        XCTAssertEqual(f.first?.level, .error)
        XCTAssertEqual(f.first?.proof?.outcome, .proven)
        XCTAssertEqual(f.first?.proof?.role, "authenticated")
        XCTAssertTrue(f.first?.proof?.keys.first?.hasPrefix("id=") == true, "\(f.first?.proof?.keys ?? [])")
        XCTAssertTrue(f.first?.detail.contains("as policy \"Users can view their own notes\" says by name") == true)
    }

    func testABasedOnUserPolicyComparingTheColumnWithItselfIsAHoleForAnonToo() throws {
        let r = try attack(
            Self.notes(
                """
                create policy "Enable read access for users based on user_id" on public.notes for select
                  using (user_id = user_id);
                """))
        let roles = Set(reads(r).compactMap(\.proof?.role))
        XCTAssertEqual(roles, ["anon", "authenticated"], r.findings.map(\.detail).joined(separator: "\n"))
        XCTAssertTrue(reads(r).allSatisfy { $0.level == .error && !($0.proof?.keys.isEmpty ?? true) })
    }

    func testAPolicyPublicByNameOrByTrueIsTheDesign() throws {
        for extra in [
            """
            create policy "Users can view own notes" on public.notes for select to authenticated
              using (user_id = (select auth.uid()));
            create policy "Notes are viewable by everyone" on public.notes for select using (true);
            """,
            """
            create policy "Users can view their own notes" on public.notes for select using (true);
            """,
        ] {
            let r = try attack(Self.notes(extra))
            XCTAssertEqual(reads(r).map(\.detail), [])
        }
    }

    func testOwnerOnlyReadsOrPoliciesSilentOnWhoseRowsGiveNothing() throws {
        for extra in [
            """
            create policy "Users can view their own notes" on public.notes for select to authenticated
              using (user_id = (select auth.uid()));
            """,
            """
            create policy "Signed-in users read notes" on public.notes for select to authenticated
              using ((select auth.uid()) is not null);
            """,
        ] {
            let r = try attack(Self.notes(extra))
            XCTAssertEqual(reads(r).map(\.detail), [])
        }
    }
}
