import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// The inferred attack on tables whose keys carry the tenant (`(order_id, org_id) → orders`):
/// every one is attacked, the correct variant gives no finding and a planted cross-tenant read
/// on the end of a chain of such keys is caught.
final class InferredAttackGroupParentTests: XCTestCase {
    func testCorrectHasNoFindingAndEveryTableIsAttacked() throws {
        let r = try attack(GroupParentTests.schema)
        XCTAssertEqual(r.findings.map(\.detail), [])
        for t in GroupParentTests.tables {
            XCTAssertTrue(r.tables.contains("public.\(t)"), "\(t): \(r.tables) \(r.notes)")
        }
        XCTAssertEqual(r.notes.filter { $0.contains("not attacked") }, [])
        XCTAssertEqual(r.covered, r.tables.count, "\(r.notes)")
    }

    func testCrossTenantReadOnAChainIsCaught() throws {
        let r = try attack(
            GroupParentTests.schema + """

                drop policy "order_items in org" on public.order_items;
                create policy leak on public.order_items for select to authenticated using (true);
                create policy w on public.order_items for insert to authenticated with check (public.in_org(org_id));
                create policy u on public.order_items for update to authenticated using (public.in_org(org_id));
                create policy d on public.order_items for delete to authenticated using (public.in_org(org_id));
                """)
        assertCaught(r, [("order_items", "reads G")])
    }
}
