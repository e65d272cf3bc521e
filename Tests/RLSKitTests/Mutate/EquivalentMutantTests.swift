import XCTest

@testable import RLSKit

/// Mutants that cannot change behaviour are reported as equivalent, with the reason; their
/// near variants are not.
final class EquivalentMutantTests: XCTestCase {
    typealias Policy = MutationCatalog.Policy

    func policy(
        _ name: String, _ command: String, _ roles: [String], using: String? = nil, check: String? = nil,
        table: String = "notes", schema: String = "public", permissive: Bool = true
    ) -> Policy {
        Policy(
            schema: schema, table: table, name: name, command: command, permissive: permissive, roles: roles,
            using: using, withCheck: check)
    }

    func table(anon: Set<String>, authenticated: Set<String> = ["SELECT", "INSERT", "UPDATE", "DELETE"])
        -> MutationCatalog.Table
    {
        .init(schema: "public", name: "notes", rls: true, grants: ["anon": anon, "authenticated": authenticated])
    }

    func mutant(_ kind: String, of name: String, in policies: [Policy], anon: Set<String> = ["SELECT"]) -> Mutant? {
        MutantGenerator.mutants(MutationCatalog(policies: policies, tables: [table(anon: anon)])).first {
            $0.kind == kind && $0.policy == name
        }
    }

    let own = "(owner_id = ( SELECT auth.uid() AS uid))"

    func testAPolicyMadeRedundantByATruePolicyForTheSameRoles() {
        let everyone = policy("everyone reads", "SELECT", ["anon", "authenticated"], using: "true")
        let mine = policy("own rows", "SELECT", ["authenticated"], using: own)
        XCTAssertEqual(
            mutant("using-true", of: "own rows", in: [everyone, mine])?.equivalentBecause,
            "policy \"everyone reads\" already allows every row for these roles")
        // FOR ALL covers SELECT too; a restrictive true policy makes nothing redundant.
        let all = policy("service", "ALL", ["public"], using: "true")
        XCTAssertNotNil(mutant("invert-identity", of: "own rows", in: [all, mine])?.equivalentBecause)
        var restrictive = everyone
        restrictive.permissive = false
        XCTAssertNil(mutant("using-true", of: "own rows", in: [restrictive, mine])?.equivalentBecause)
        // A true policy for anon alone leaves authenticated's rows to this one.
        let anonOnly = policy("anon reads", "SELECT", ["anon"], using: "true")
        XCTAssertNil(mutant("using-true", of: "own rows", in: [anonOnly, mine])?.equivalentBecause)
        // For another command it is no cover either.
        let deletes = policy("anyone deletes", "DELETE", ["authenticated"], using: "true")
        XCTAssertNil(mutant("drop-conjunct", of: "own rows", in: [deletes, mine])?.equivalentBecause)
    }

    func testWithCheckRemovedIsEquivalentOnlyWhenItRepeatsUsing() {
        let same = policy(
            "edit", "UPDATE", ["authenticated"], using: own, check: "((owner_id)::uuid = ( SELECT auth.uid() AS uid))")
        XCTAssertEqual(
            mutant("drop-check", of: "edit", in: [same])?.equivalentBecause,
            "WITH CHECK is the same as USING, which it falls back to")
        let stricter = policy(
            "edit", "UPDATE", ["authenticated"], using: own, check: "((owner_id = auth.uid()) AND (NOT locked))")
        XCTAssertNotNil(mutant("drop-check", of: "edit", in: [stricter]))
        XCTAssertNil(mutant("drop-check", of: "edit", in: [stricter])?.equivalentBecause)
    }

    func testRolesWidenedToAnonWithoutItsPrivilegeOrItsUserId() {
        let insert = policy("add", "INSERT", ["authenticated"], check: "(length(body) < 100)")
        XCTAssertEqual(
            mutant("roles-widened", of: "add", in: [insert])?.equivalentBecause,
            "anon has no INSERT privilege on the table")
        XCTAssertNil(mutant("roles-widened", of: "add", in: [insert], anon: ["SELECT", "INSERT"])?.equivalentBecause)
        let read = policy("own", "SELECT", ["authenticated"], using: "((team <> 'x'::text) AND \(own))")
        XCTAssertEqual(
            mutant("roles-widened", of: "own", in: [read])?.equivalentBecause,
            "the policy compares with auth.uid(), which anon does not have")
        // `auth.uid() IS NULL OR …` lets anon through: widening it is a real mistake.
        let orNull = policy("own", "SELECT", ["authenticated"], using: "((auth.uid() IS NULL) OR \(own))")
        XCTAssertNil(mutant("roles-widened", of: "own", in: [orNull])?.equivalentBecause)
    }

    func testStorageDeletesAndMovesReadThroughTheSelectPolicy() {
        let test = "((bucket_id = 'f'::text) AND ((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text))"
        let read = policy("read", "SELECT", ["authenticated"], using: test, table: "objects", schema: "storage")
        let delete = policy("delete", "DELETE", ["authenticated"], using: test, table: "objects", schema: "storage")
        let m = mutant("using-true", of: "delete", in: [read, delete])
        XCTAssertEqual(
            m?.equivalentBecause,
            "the Storage API deletes with RETURNING, so SELECT policy \"read\" applies the same test")
        // Inverting the test shuts the owner out: a real mutant, whatever SELECT says.
        XCTAssertNil(mutant("invert-identity", of: "delete", in: [read, delete])?.equivalentBecause)
        // A SELECT policy testing something else does not mask the DELETE policy.
        let readAll = policy(
            "read", "SELECT", ["authenticated"], using: "(bucket_id = 'f'::text)", table: "objects", schema: "storage")
        XCTAssertNil(mutant("using-true", of: "delete", in: [readAll, delete])?.equivalentBecause)
        // Uploads insert without RETURNING: never masked.
        let upload = policy("upload", "INSERT", ["authenticated"], check: test, table: "objects", schema: "storage")
        XCTAssertNil(mutant("check-true", of: "upload", in: [read, upload])?.equivalentBecause)
    }
}
