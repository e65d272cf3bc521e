import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Bucket values are the table language's `who`; `ownership group` follows a members block.
final class BucketWhoParserTests: XCTestCase {
    static let members = """
        members public.team_members
          group team_id
          user user_id
          role role
          roles owner member
          read members
          add members with role owner
          remove members with role owner
          leave members
          change-role members with role owner
        role admin
          claim app_metadata.role = admin

        """

    func bucket(_ body: String, prefix: String = members) throws -> BucketIntent {
        try AccessFile.parse(prefix + "bucket docs\n" + body, path: "a.rls").buckets[0]
    }

    func testWhoValuesOnBucketOperations() throws {
        let b = try bucket(
            "  ownership group\n  read signed-in or admin\n  upload members\n  overwrite members\n"
                + "  move members with role owner\n  delete members with role owner or admin\n")
        XCTAssertEqual(b.model, .group)
        XCTAssertNil(b.groupMembers)
        XCTAssertEqual(b.read, .who(Who(principals: [.signedIn, .role("admin")])))
        XCTAssertEqual(b.upload, .members)
        XCTAssertEqual(b.delete, Who(principals: [.members(roles: ["owner"]), .role("admin")]))
        XCTAssertEqual(b.lister, Who(principals: [.signedIn, .role("admin")]))
        XCTAssertEqual(try bucket("  ownership group\n  read public\n  write members\n").lister, .members)
        let named = try bucket("  ownership group public.team_members\n  read members\n  write members\n")
        XCTAssertEqual(named.groupMembers, "public.team_members")
        let roles = try bucket(
            "  read owner or admin\n  upload owner\n  overwrite nobody\n  move nobody\n  delete owner or admin\n")
        XCTAssertEqual(roles.model, .folder)
        XCTAssertEqual(roles.delete?.roleNames, ["admin"])
    }

    func testEveryMistakeIsOneLineWithFileAndLine() {
        let second =
            Self.members + "members public.project_members\n  group project_id\n  user user_id\n"
            + "  read members\n  add nobody\n  remove nobody\n  leave members\n"
        let cases: [(String, String, String)] = [
            (
                Self.members, "  read members\n  write members\n",
                "a.rls:14: bucket docs has no 'ownership group', which 'read members' needs"
            ),
            (
                Self.members, "  ownership group\n  read owner\n  write members\n",
                "a.rls:15: bucket docs: in a group bucket objects belong to the group"
            ),
            (
                Self.members, "  ownership group\n  read members\n  write members with role boss\n",
                "a.rls:16: bucket docs: no members block lists the role 'boss'"
            ),
            (
                Self.members, "  read owner or editor\n  write owner\n",
                "a.rls:14: unknown read value 'editor' for bucket docs"
            ),
            (Self.members, "  read public or admin\n  write owner\n", "a.rls:14: 'read public' stands alone"),
            (Self.members, "  read owner\n  write own-folder or admin\n", "a.rls:15: 'write own-folder' stands alone"),
            (Self.members, "  read owner\n  upload own-folder\n", "a.rls:15: unknown upload value 'own-folder'"),
            (Self.members, "  read owner\n  write owner or\n", "a.rls:15: 'write': 'or' needs a value on both sides"),
            (
                Self.members, "  ownership group\n  write own-folder\n",
                "a.rls:15: 'write own-folder' means folder ownership, but this bucket says 'ownership group'"
            ),
            (
                "", "  ownership group\n  read members\n  write members\n",
                "a.rls:2: 'ownership group' needs group declarations"
            ),
            (
                second, "  ownership group\n  read members\n  write members\n",
                "a.rls:21: 'ownership group': several members blocks, say which"
            ),
            (
                second, "  ownership group public.teams\n  read members\n  write members\n",
                "a.rls:21: 'ownership group public.teams': no members block declares public.teams"
            ),
            (
                Self.members, "  ownership group a b\n",
                "a.rls:14: write 'ownership group' or 'ownership group schema.members_table'"
            ),
            (
                Self.members, "  ownership group\n  read members\n  write members\n  upload members with role owner\n",
                "a.rls:16: bucket docs: overwrite members but upload members with role owner"
            ),
            (
                Self.members,
                "  ownership group\n  read members with role owner\n  write members with role owner\n  delete members\n",
                "a.rls:17: bucket docs: delete members but only members with role owner may list"
            ),
            (
                Self.members, "  read owner\n  write owner\n  delete owner or admin\n",
                "a.rls:16: bucket docs: delete owner or admin but only owner may list"
            ),
            (
                Self.members, "  read owner or admin\n  write owner\n  overwrite admin\n",
                "a.rls:16: bucket docs: overwrite admin but upload owner"
            ),
        ]
        for (prefix, body, expected) in cases {
            XCTAssertThrowsError(try bucket(body, prefix: prefix)) { e in
                let line = "\(e)"
                XCTAssertTrue(line.hasPrefix(expected), "\(body.debugDescription) → \(line)")
                XCTAssertFalse(line.contains("\n"))
            }
        }
    }

    /// Random bucket blocks from the language's words, who values and group ownership included.
    func testRandomGroupBucketBlocksNeverCrash() {
        var rng = SeededGenerator.printed(20_261_201)
        let keys = ["ownership", "read", "list", "write", "upload", "overwrite", "move", "delete"]
        let values = [
            "group", "folder", "owner-id", "public.team_members", "public", "own-folder", "owner", "signed-in",
            "anyone", "nobody", "members", "with", "role", "owner,", "member", "or", "admin", "boss", "",
        ]
        for _ in 0..<400 {
            var text = Self.members + "bucket b\n"
            for _ in 0..<Int.random(in: 0...8, using: &rng) {
                let n = Int.random(in: 0...4, using: &rng)
                let words = [keys.randomElement(using: &rng)!] + (0..<n).map { _ in values.randomElement(using: &rng)! }
                text += "  " + words.joined(separator: " ") + "\n"
            }
            do {
                guard let b = try AccessFile.parse(text, path: "f.rls").buckets.first else { continue }
                XCTAssertFalse([b.upload, b.overwrite, b.move, b.delete].contains { $0 == nil }, text)
                if b.model == .group { XCTAssertFalse([b.upload, b.delete].contains { $0!.mentionsOwner }, text) }
            } catch {
                let line = "\(error)"
                XCTAssertTrue(line.hasPrefix("f.rls:"), line)
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
    }
}
