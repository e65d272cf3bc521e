import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// The language of groups, roles and catalogs: every mistake is one line at the right place,
/// and random files built from its words never crash the parser.
final class AccessLanguageTests: XCTestCase {
    static let members = """
        members public.team_members
          group team_id
          user user_id
          role role
          roles owner admin member
          read members
          add members with role owner, admin
          remove members with role owner
          leave members
          change-role members with role owner

        """

    func testWhoValuesParse() throws {
        let text =
            Self.members + """
                role staff
                  claim app_metadata.staff = true
                table public.docs
                  group team_id
                  owner author_id
                  read members or staff
                  insert members with role owner, admin
                  update owner or members with role owner
                  delete nobody
                """
        let file = try AccessFile.parse(text, path: "a.rls")
        let t = file.tables[0]
        XCTAssertEqual(t.read, Who(principals: [.members(roles: []), .role("staff")]))
        XCTAssertEqual(t.insert, Who(principals: [.members(roles: ["owner", "admin"])]))
        XCTAssertEqual(t.update?.description, "owner or members with role owner")
        XCTAssertEqual(file.memberships[0].roles, ["owner", "admin", "member"])
        XCTAssertEqual(file.roles[0].claimPath, ["app_metadata", "staff"])
        XCTAssertEqual(file.roles[0].value, "true")
        // A who prints back as it parses.
        for w in [t.read!, t.insert!, t.update!, t.delete!] {
            XCTAssertEqual(
                try Who.parse(
                    w.description.split(separator: " ").map(String.init), key: "read", at: .init(file: "x", line: 1)), w
            )
        }
    }

    func testEveryMistakeIsOneLineAtItsPlace() throws {
        let table = "table public.docs\n  group team_id\n"
        let cases: [(String, String)] = [
            (
                Self.members + table + "  read members or\n  write nobody\n",
                "a.rls:13: 'read': 'or' needs a value on both sides"
            ),
            (
                Self.members + table + "  read members with\n  write nobody\n",
                "a.rls:13: 'read': write 'members' or 'members with role R'"
            ),
            (
                Self.members + table + "  read members with role\n  write nobody\n",
                "a.rls:13: 'read': write 'members' or 'members with role R'"
            ),
            (
                Self.members + table + "  read members with role boss\n  write nobody\n",
                "a.rls:13: table public.docs: no members block lists the role 'boss'"
            ),
            (
                Self.members + table + "  read staff\n  write nobody\n",
                "a.rls:13: unknown read value 'staff' for table public.docs"
            ),
            (
                Self.members + table + "  read nobody or members\n  write nobody\n",
                "a.rls:13: 'read': 'nobody' cannot be combined"
            ),
            (
                Self.members + table + "  read members or members\n  write nobody\n",
                "a.rls:13: 'read': 'members' is named twice"
            ),
            (
                Self.members + table + "  read owner\n  write nobody\n",
                "a.rls:13: table public.docs has no 'owner' line, which 'read owner' needs"
            ),
            (
                "table public.docs\n  read members\n  write nobody\n",
                "a.rls:2: table public.docs has no 'group' line, which 'read members' needs"
            ),
            (
                "table public.docs\n  group team_id\n  read anyone\n  write nobody\n",
                "a.rls:2: table public.docs has a 'group' but no 'members' block"
            ),
            ("members public.m\n  user user_id\n", "a.rls:1: members public.m has no 'group' line"),
            ("members public.m\n  group g\n", "a.rls:1: members public.m has no 'user' line"),
            (
                "members public.m\n  group g\n  user u\n  role r\n",
                "a.rls:4: members public.m has a role column but no 'roles' line"
            ),
            (
                "members public.m\n  group g\n  user u\n  roles a b\n",
                "a.rls:4: members public.m lists roles but has no 'role' line"
            ),
            ("members public.m\n  group g\n  user u\n  read members\n", "a.rls:1: members public.m has no 'add' line"),
            ("members public.m\n  group g\n  user u\n  roles a a\n", "a.rls:4: 'roles': 'a' is listed twice"),
            ("members public.m\n  group g\n  user u\n  colour red\n", "a.rls:4: unknown members setting 'colour'"),
            ("members public.m\n  group g h\n", "a.rls:2: 'group' takes one column name"),
            (
                Self.members.replacingOccurrences(of: "leave members", with: "leave signed-in"),
                "a.rls:9: members public.team_members: 'leave' is about members leaving"
            ),
            (
                Self.members.replacingOccurrences(of: "read members", with: "read owner"),
                "a.rls:6: members public.team_members: membership rows have no owner"
            ),
            (
                Self.members.replacingOccurrences(
                    of: "remove members with role owner", with: "remove members with role boss"),
                "a.rls:8: members public.team_members: no members block lists the role 'boss'"
            ),
            (
                "members public.m\n  group g\n  user u\n  read members\n  add nobody\n  remove nobody\n  leave nobody\n  change-role nobody\n",
                "a.rls:8: members public.m has no role column"
            ),
            ("role\n", "a.rls:1: write 'role name'"),
            ("role owner\n  claim x = 1\n", "a.rls:1: 'owner' already means something"),
            ("role admin\n", "a.rls:1: role admin has no 'claim' or 'row' line"),
            ("role admin\n  claim role = admin\n", "a.rls:2: claim 'role' is set by the platform"),
            (
                "role admin\n  claim user_metadata.role = admin\n",
                "a.rls:2: claim 'user_metadata…' is written by users themselves"
            ),
            ("role admin\n  claim app_metadata.role admin\n", "a.rls:2: write 'claim app_metadata.KEY = VALUE'"),
            ("role admin\n  claim a = 1\n  claim b = 2\n", "a.rls:3: 'claim' is already set at line 2"),
            ("role admin\n  grant x\n", "a.rls:2: unknown role setting 'grant'"),
            ("role admin\n  claim a = 1\nrole admin\n  claim a = 1\n", "a.rls:3: role admin is declared twice"),
            (Self.members + "table public.team_members\n", "a.rls:11: table public.team_members is declared twice"),
        ]
        for (text, prefix) in cases {
            XCTAssertThrowsError(try AccessFile.parse(text, path: "a.rls"), text) { e in
                let line = "\(e)"
                XCTAssertTrue(line.hasPrefix(prefix), "\(text.debugDescription)\n→ \(line)\nwanted \(prefix)")
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
    }

    /// Files assembled from the language's own words, then mutated: the parser answers with a
    /// file or with one line naming a line of the file, never a crash or a line out of range.
    func testRandomFilesFromTheGrammarNeverCrash() throws {
        var rng = SeededGenerator.printed(0x7465_616D)
        let heads = [
            "table public.t", "members public.m", "role admin", "role staff", "bucket b", "expose public", "table x",
        ]
        let settings = [
            "owner user_id", "group team_id", "user user_id", "role role", "roles owner member", "read members",
            "read anyone", "write nobody", "insert members with role owner", "update owner or admin", "delete staff",
            "add members with role owner", "remove nobody", "leave members", "change-role members with role owner",
            "claim app_metadata.role = admin", "claim user_role = 'mod'", "read members with role", "write or",
            "read nobody or owner", "seed x = 1", "read signed-in or members with role owner, member",
        ]
        var parsed = 0
        var refused = 0
        let valid =
            (Self.members
            + "role admin\n  claim app_metadata.role = admin\ntable public.t\n  group team_id\n  read members or admin\n  write members with role owner\n")
            .split(separator: "\n").map(String.init)
        for round in 0..<4000 {
            var lines: [String] = []
            if round % 4 == 0 {
                // A valid file with one line dropped or doubled, or untouched.
                lines = valid
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: lines.remove(at: Int.random(in: 0..<lines.count, using: &rng))
                case 1:
                    let i = Int.random(in: 0..<lines.count, using: &rng)
                    lines.insert(lines[i], at: i)
                default: break
                }
            }
            for _ in 0..<(round % 4 == 0 ? 0 : Int.random(in: 1...14, using: &rng)) {
                if Bool.random(using: &rng) || lines.isEmpty {
                    lines.append(heads.randomElement(using: &rng)!)
                } else {
                    var s = settings.randomElement(using: &rng)!
                    if Int.random(in: 0..<6, using: &rng) == 0, !s.isEmpty {
                        var chars = Array(s)
                        chars[Int.random(in: 0..<chars.count, using: &rng)] = ["\"", ",", " ", "#", "?", "é"]
                            .randomElement(using: &rng)!
                        s = String(chars)
                    }
                    lines.append("  " + s)
                }
            }
            let text = lines.joined(separator: "\n") + "\n"
            do {
                _ = try AccessFile.parse(text, path: "f.rls")
                parsed += 1
            } catch {
                refused += 1
                let d = "\(error)"
                XCTAssertTrue(d.hasPrefix("f.rls:"), d)
                XCTAssertFalse(d.contains("\n"), d)
                let n = Int(d.dropFirst(6).prefix { $0.isNumber }) ?? 0
                XCTAssertTrue((1...lines.count).contains(n), "line \(n) of \(lines.count): \(d)\n\(text)")
            }
        }
        XCTAssertGreaterThan(parsed, 20)
        XCTAssertGreaterThan(refused, 1000)
    }
}
