import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Lists in an access file are cut at top-level commas only: a comma inside 'a string',
/// "a name" or f(x, y) belongs to its value. A NUL byte anywhere is one line at its place.
final class AccessListSplittingTests: XCTestCase {
    static let roles = """
        table public.notes
          owner user_id
          read owner or admin
          write owner
        role admin
        """

    func testRoleRowValuesKeepCommasInStringsAndCalls() throws {
        let a = try AccessFile.parse(
            Self.roles
                + "\n  row public.user_roles user_id, role = 'a,b', level = coalesce(1, 2), tags = array['p', 'q']\n",
            path: "a.rls")
        let r = try XCTUnwrap(a.roles.first)
        XCTAssertEqual(r.rowValues.map(\.column), ["role", "level", "tags"])
        XCTAssertEqual(r.rowValues.map(\.expression), ["'a,b'", "coalesce(1, 2)", "array['p', 'q']"])
    }

    func testRoleRowTableMayBeAQuotedNameWithSpaces() throws {
        let a = try AccessFile.parse(Self.roles + "\n  row \"user roles\" user_id, role = 'x, y'\n", path: "a.rls")
        let r = try XCTUnwrap(a.roles.first)
        XCTAssertEqual(r.rowName, "user roles")
        XCTAssertEqual(r.rowUserColumn, "user_id")
        XCTAssertEqual(r.rowValues.map(\.expression), ["'x, y'"])
    }

    func testFunctionArgumentTypesKeepTheirModifiers() throws {
        let a = try AccessFile.parse(
            Self.roles + "\n  claim app_metadata.role = admin\n"
                + "function public.price(numeric(10,2), text) callable-by anyone\n",
            path: "a.rls")
        XCTAssertEqual(a.functions.first?.argTypes, ["numeric(10,2)", "text"])
    }

    func testQuotedNamesInListsKeepTheirCommas() throws {
        let a = try AccessFile.parse(
            """
            expose public,"a,b"
            table public.notes
              owner user_id
              read owner
              write owner
              protect "is,admin", plan
            """, path: "a.rls")
        XCTAssertEqual(a.exposedSchemas, ["public", "a,b"])
        XCTAssertEqual(a.tables.first?.protected, ["is,admin", "plan"])
    }

    func testAQuotedClaimValueMayHoldSpacesAndQuotes() throws {
        let a = try AccessFile.parse(Self.roles + "\n  claim app_metadata.role = 'super admin''s'\n", path: "a.rls")
        XCTAssertEqual(a.roles.first?.value, "\"super admin's\"")
    }

    func testANulByteAnywhereIsOneLineAtItsPlace() {
        let cases: [(String, String)] = [
            // In a quoted table name, which would reach the server as a parameter.
            ("table public.\"no\u{0}tes\"\n  owner user_id\n", "a.rls:1: contains a NUL byte (column 17)"),
            // In a header value, sent with every request.
            ("header x-tenant = a\u{0}b\n", "a.rls:1: contains a NUL byte (column 20)"),
            // In a comment, where nothing would be read.
            (Self.roles + "\n  claim app_metadata.role = admin\n# note \u{0}\n", "a.rls:7: contains a NUL byte"),
            // In a role row's value.
            (Self.roles + "\n  row public.user_roles user_id, role = 'a\u{0}'\n", "a.rls:6: contains a NUL byte"),
        ]
        for (text, prefix) in cases {
            XCTAssertThrowsError(try AccessFile.parse(text, path: "a.rls")) { e in
                XCTAssertTrue("\(e)".hasPrefix(prefix), "\(text.debugDescription) → \(e)")
                XCTAssertFalse("\(e)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try ScenarioFile.parse("scenario s\n  user a\u{0}\n", path: "s.scenario")) { e in
            XCTAssertTrue("\(e)".hasPrefix("s.scenario:2: contains a NUL byte"), "\(e)")
        }
    }
}
