import XCTest

@testable import RLSKit

/// A suggested block states, for every command, who passes the original policies and grants
/// today; where a policy's test is not one an access-file word says, it asks and quotes it.
final class KillSuggestionTests: XCTestCase {
    typealias Policy = MutationCatalog.Policy

    func policy(_ name: String, _ command: String, _ roles: [String], using: String? = nil, check: String? = nil)
        -> Policy
    {
        Policy(
            schema: "public", table: "cards", name: name, command: command, permissive: true, roles: roles,
            using: using, withCheck: check)
    }

    let table = MutationCatalog.Table(
        schema: "public", name: "cards", rls: true,
        grants: ["anon": ["SELECT"], "authenticated": ["SELECT", "INSERT", "UPDATE"]])

    func testTodaysVerdictForEachCommand() {
        let policies = [
            policy("read", "SELECT", ["anon", "authenticated"], using: "true"),
            policy("add", "INSERT", ["authenticated"], check: "(owner_id = ( SELECT auth.uid() AS uid))"),
            policy("edit", "UPDATE", ["authenticated"], using: "(owner_id = auth.uid())"),
            // No DELETE grant: the policy lets nobody delete.
            policy("remove", "DELETE", ["authenticated"], using: "(owner_id = auth.uid())"),
        ]
        XCTAssertEqual(
            KillSuggestion.block(table, policies: policies, owner: "owner_id"),
            "table public.cards\n  owner owner_id\n  read anyone\n  insert owner\n  update owner\n  delete nobody")
        // Without anon's grant everyone is only the signed-in; the same word for all writes is one line.
        var signedIn = table
        signedIn.grants["anon"] = []
        signedIn.grants["authenticated"] = ["SELECT"]
        XCTAssertEqual(
            KillSuggestion.block(signedIn, policies: policies, owner: "owner_id"),
            "table public.cards\n  read signed-in\n  write nobody")
    }

    func testATestNoWordSaysIsAskedAndQuoted() {
        let policies = [
            policy("read", "SELECT", ["authenticated"], using: "((owner_id = auth.uid()) OR is_shared)"),
            policy("add", "INSERT", ["authenticated"], check: "(owner_id = auth.uid())"),
        ]
        let block = KillSuggestion.block(table, policies: policies, owner: "owner_id")
        XCTAssertTrue(block.contains("  read ?   # who passes today: "), block)
        XCTAssertTrue(block.contains("is_shared"), block)
        XCTAssertTrue(block.contains("  insert owner\n"), block)
    }
}
