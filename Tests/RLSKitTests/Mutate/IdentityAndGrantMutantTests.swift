import XCTest

@testable import RLSKit

/// The identity comparison pointed at another column of the same type, WITH CHECK weakened
/// below USING, and a column grant widened to the whole table: which policies and grants get
/// such mutants, and when they are equivalent.
final class IdentityAndGrantMutantTests: XCTestCase {
    typealias Policy = MutationCatalog.Policy
    typealias Column = MutationCatalog.Table.Column

    let columns = [
        Column(name: "id", type: "uuid"), Column(name: "user_id", type: "uuid"),
        Column(name: "created_by", type: "uuid"), Column(name: "label", type: "text"),
        Column(name: "team", type: "bigint"),
    ]

    func catalog(
        _ policies: [Policy], columnGrants: [String: [String: [String]]] = [:], grants: [String: Set<String>]? = nil
    )
        -> MutationCatalog
    {
        MutationCatalog(
            policies: policies,
            tables: [
                .init(
                    schema: "public", name: "items", rls: true,
                    grants: grants ?? ["authenticated": ["SELECT", "INSERT", "UPDATE", "DELETE"]], columns: columns,
                    columnGrants: columnGrants)
            ])
    }

    func policy(
        _ name: String, _ command: String, _ roles: [String] = ["authenticated"], using: String? = nil,
        check: String? = nil
    )
        -> Policy
    {
        Policy(
            schema: "public", table: "items", name: name, command: command, permissive: true, roles: roles,
            using: using, withCheck: check)
    }

    func kinds(_ kind: String, _ c: MutationCatalog) -> [Mutant] {
        MutantGenerator.mutants(c).filter { $0.kind == kind }
    }

    func testTheCallersColumnIsSwappedForAnotherOfTheSameType() {
        let c = catalog([policy("mine", "SELECT", using: "(user_id = ( SELECT auth.uid() AS uid))")])
        let swapped = kinds("identity-column", c)
        XCTAssertEqual(
            swapped.map(\.apply),
            [
                ["alter policy mine on public.items using ((id = (SELECT auth.uid() AS uid)))"],
                ["alter policy mine on public.items using ((created_by = (SELECT auth.uid() AS uid)))"],
            ])
        XCTAssertEqual(swapped.first?.mutation, "USING: user_id replaced by id in the comparison with the caller")
        // The caller's side first, in an AND, the column in brackets.
        let left = catalog([
            policy("mine", "UPDATE", using: "((auth.uid() = (created_by)) AND (label <> 'x'::text))", check: "true")
        ])
        XCTAssertEqual(
            kinds("identity-column", left).first?.apply,
            ["alter policy mine on public.items using (((auth.uid() = (id)) AND (label <> 'x'::text)))"])
    }

    func testNoSwapWithoutAColumnOfTheSameTypeOrOutsideTheRow() {
        // team is the only bigint; a comparison inside a subquery is about another table.
        let team = catalog([
            policy(
                "team", "SELECT",
                using: "(team IN ( SELECT m.team FROM members m WHERE (m.user_id = auth.uid())))")
        ])
        XCTAssertTrue(kinds("identity-column", team).isEmpty)
        let email = catalog([policy("by email", "SELECT", using: "(label = (auth.jwt() ->> 'email'::text))")])
        XCTAssertTrue(kinds("identity-column", email).isEmpty)
        XCTAssertNil(ExpressionMutation.identityColumn("(user_id::text = auth.uid()::text)"))
    }

    func testAnImplicitWithCheckIsWeakenedBelowUsing() {
        let c = catalog([
            policy("edit", "UPDATE", using: "((user_id = auth.uid()) AND (label <> 'frozen'::text))")
        ])
        let weaker = kinds("check-weakened", c)
        XCTAssertEqual(
            weaker.map(\.mutation),
            [
                "WITH CHECK (true) added: USING no longer checks the new row",
                "WITH CHECK added without user_id = auth.uid() (USING keeps it)",
                "WITH CHECK added without label <> 'frozen'::text (USING keeps it)",
            ])
        XCTAssertTrue(weaker.allSatisfy { $0.hint.newRow && $0.equivalentBecause == nil })
        // An explicit WITH CHECK is weakened by dropping its own conjuncts; SELECT has none.
        let explicit = catalog([
            policy("edit", "UPDATE", using: "(user_id = auth.uid())", check: "(user_id = auth.uid())"),
            policy("read", "SELECT", using: "((user_id = auth.uid()) AND (label <> 'x'::text))"),
        ])
        XCTAssertTrue(kinds("check-weakened", explicit).isEmpty)
        // Another UPDATE policy that is already true makes it change nothing.
        let open = catalog([
            policy("edit", "UPDATE", using: "(user_id = auth.uid())"),
            policy("anything", "UPDATE", using: "true"),
        ])
        XCTAssertNotNil(kinds("check-weakened", open).first { $0.policy == "edit" }?.equivalentBecause)
    }

    func testAColumnGrantIsWidenedToTheWholeTable() throws {
        let edit = policy("edit", "UPDATE", using: "(user_id = auth.uid())")
        let c = catalog(
            [edit, policy("read", "SELECT", using: "true")], columnGrants: ["authenticated": ["UPDATE": ["label"]]],
            grants: ["authenticated": ["SELECT"]])
        let m = try XCTUnwrap(kinds("column-grant-widened", c).first)
        XCTAssertEqual(m.mutation, "grant widened: authenticated's UPDATE (label) made UPDATE on the whole table")
        XCTAssertEqual(m.apply, ["grant UPDATE on public.items to authenticated"])
        XCTAssertEqual(
            m.undo,
            [
                "revoke UPDATE on public.items from authenticated",
                "grant UPDATE (label) on public.items to authenticated",
            ])
        XCTAssertNil(m.equivalentBecause)
        XCTAssertEqual(KillSuggestion.text(m), "table public.items\n  owner user_id\n  protect id, created_by, team")
        // No policy lets authenticated update: the wider grant reaches no row.
        let noPolicy = catalog(
            [policy("read", "SELECT", using: "true")], columnGrants: ["authenticated": ["UPDATE": ["label"]]],
            grants: ["authenticated": ["SELECT"]])
        XCTAssertNotNil(kinds("column-grant-widened", noPolicy).first?.equivalentBecause)
        // A grant on every column is the whole table already; a table privilege has no column mutant.
        let every = catalog([edit], columnGrants: ["authenticated": ["UPDATE": columns.map(\.name)]], grants: [:])
        XCTAssertEqual(
            kinds("column-grant-widened", every).first?.equivalentBecause,
            "the column grant already covers every column")
        XCTAssertTrue(kinds("column-grant-widened", catalog([edit])).isEmpty)
    }

    func testAnonIsGivenAuthenticatedsColumnGrants() throws {
        let c = catalog(
            [policy("read", "SELECT", ["anon", "authenticated"], using: "true")],
            columnGrants: ["authenticated": ["SELECT": ["id", "label"]]], grants: [:])
        let m = try XCTUnwrap(kinds("grant-widened", c).first)
        XCTAssertEqual(m.apply, ["grant SELECT (id, label) on public.items to anon"])
        XCTAssertNil(m.equivalentBecause)
        // anon already holding its own column grant of that kind is left alone.
        let own = catalog(
            [policy("read", "SELECT", ["anon", "authenticated"], using: "true")],
            columnGrants: ["authenticated": ["SELECT": ["id", "label"]], "anon": ["SELECT": ["label"]]], grants: [:])
        XCTAssertTrue(kinds("grant-widened", own).isEmpty)
    }
}
