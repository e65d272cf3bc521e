import XCTest

@_spi(CLI) @testable import RLSKit

/// Which SELECT policies say by name that an owner table's rows are their owner's.
final class PrivateByNameTests: XCTestCase {
    func table(_ policies: [(String, String, [String], String?)]) -> AccessDraft.Table {
        var t = AccessDraft.Table(schema: "public", name: "notes")
        t.policies = policies.map {
            AccessDraft.Policy(name: $0.0, command: $0.1, roles: $0.2, permissive: true, using: $0.3, check: nil)
        }
        return t
    }

    func testOwnersWordsMakeRowsPrivate() {
        for name in [
            "Users can view their own notes", "Enable read access for users based on user_id", "read_own_note",
        ] {
            XCTAssertEqual(
                AccessDraft.privateByName(table([(name, "r", ["authenticated"], "user_id = auth.uid()")])), name)
        }
        // An ALL policy for the owner reads too; a write policy says nothing of reads.
        XCTAssertNotNil(AccessDraft.privateByName(table([("Allow full access to own notes", "*", ["public"], "x")])))
    }

    func testEveryoneByNameByTrueOrSilenceIsNot() {
        for policies in [
            [("Users can view own notes", "r", ["authenticated"], "a"), ("Notes are public", "r", ["anon"], "b")],
            [("Users can view their own notes", "r", ["authenticated"], "( true )")],
            [("Allow view access to non-private notes", "r", ["public"], "sharing <> 'private'")],
            [("Signed-in users read notes", "r", ["authenticated"], "auth.uid() is not null")],
            [("Users update their own notes", "w", ["authenticated"], "user_id = auth.uid()")],
        ] {
            XCTAssertNil(AccessDraft.privateByName(table(policies)), "\(policies)")
        }
    }
}
