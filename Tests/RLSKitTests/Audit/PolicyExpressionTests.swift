import XCTest

@_spi(CLI) @testable import RLSKit

final class PolicyExpressionTests: XCTestCase {
    func testNormalFormReadsDeparsedSelectWrappers() {
        let e = PolicyExpression(
            "((bucket_id = ANY (ARRAY['avatars'::text, 'post-images'::text])) AND ((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text))"
        )
        XCTAssertEqual(e.bindings, ["storage.foldername(name)[1]"])
        XCTAssertEqual(e.authCalls, [.init(function: "auth.uid", wrapped: true)])
        XCTAssertEqual(e.conjuncts.count, 2)
        XCTAssertEqual(e.stringLiterals, ["avatars", "post-images"])
        XCTAssertTrue(e.hasIdentity)
    }

    func testBareAuthCallIsNotWrapped() {
        let e = PolicyExpression("(owner = auth.uid())")
        XCTAssertEqual(e.authCalls, [.init(function: "auth.uid", wrapped: false)])
        XCTAssertEqual(e.bindings, ["owner"])
        XCTAssertEqual(PolicyExpression("(( SELECT auth.uid() AS uid) = owner)").bindings, ["owner"])
    }

    func testIsNullDisjunct() {
        XCTAssertTrue(
            PolicyExpression("((( SELECT auth.uid() AS uid) IS NULL) OR (owner = ( SELECT auth.uid() AS uid)))")
                .hasIdentityIsNullDisjunct)
        XCTAssertFalse(
            PolicyExpression("((( SELECT auth.uid() AS uid) IS NOT NULL) AND (owner = ( SELECT auth.uid() AS uid)))")
                .hasIdentityIsNullDisjunct)
        XCTAssertFalse(PolicyExpression("((deleted_at IS NULL) OR (owner = auth.uid()))").hasIdentityIsNullDisjunct)
    }

    func testTrueAndUserMetadata() {
        XCTAssertTrue(PolicyExpression("true").isTrue)
        XCTAssertTrue(
            PolicyExpression(
                "((( SELECT auth.jwt() AS jwt) -> 'user_metadata'::text) ->> 'role'::text) = 'admin'::text"
            ).referencesUserMetadata)
        XCTAssertFalse(
            PolicyExpression("((( SELECT auth.jwt() AS jwt) -> 'app_metadata'::text) ->> 'role'::text) = 'admin'::text")
                .referencesUserMetadata)
    }

    func testQuotedStringsAndIdentifiers() {
        let e = PolicyExpression("((\"Owner Id\" = auth.uid()) AND (note <> 'it''s (not) a paren'::text))")
        XCTAssertEqual(e.bindings, ["\"Owner Id\""])
        XCTAssertEqual(e.stringLiterals, ["it's (not) a paren"])
    }

    func testSecretScannerRedacts() {
        let key =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiaXNzIjoic3VwYWJhc2UifQ.c2lnbmF0dXJlLW5vdC1yZWFs"
        let m = SecretScanner.scan("key := '\(key)'; url := 'postgres://app:s3cretpass@db:5432/x'")
        XCTAssertEqual(m.map(\.kind), ["service_role JWT", "password in a connection URL"])
        XCTAssertFalse(m.contains { $0.redacted.contains("s3cretpass") || $0.redacted.contains("c2lnbmF0") })
    }
}

final class ReportFormatTests: XCTestCase {
    func testJSONEscaping() throws {
        let s = "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} del \u{7F} ls \u{2028} é 🙂"
        let text = JSON.object([("k", .string(s))]).rendered(pretty: false)
        XCTAssertFalse(text.contains("\n"))
        let back = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        XCTAssertEqual(back?["k"], s)
    }

    func testJSONReadsBackWhatItWritesWithTypesKept() throws {
        let text =
            #"{"b": true, "f": false, "i": 42, "neg": -7, "d": 1.5, "s": "x\u00e9", "n": null, "a": [1, "two", {"z": 0, "y": [false]}]}"#
        let v = try JSON(parsing: text)
        XCTAssertEqual(
            v.rendered(pretty: false),
            #"{"a":[1,"two",{"y":[false],"z":0}],"b":true,"d":1.5,"f":false,"i":42,"n":null,"neg":-7,"s":"xé"}"#)
        XCTAssertEqual(try JSON(parsing: v.rendered()), v)
        XCTAssertEqual(v["i"], .int(42))
        XCTAssertEqual(
            try JSON(parsing: #"{"role": "x", "keep": 1}"#).merging(try JSON(parsing: #"{"role": "admin"}"#)).rendered(
                pretty: false),
            #"{"keep":1,"role":"admin"}"#)
        XCTAssertThrowsError(try JSON(parsing: "{nope"))
    }

    func testBaselineParsing() throws {
        let b = try Baseline.parse("# c\n\n0123456789abcdef # accepted: fixture\n", file: "b.txt")
        XCTAssertEqual(b.reasons, ["0123456789abcdef": "accepted: fixture"])
        XCTAssertThrowsError(try Baseline.parse("0123456789abcdef\n", file: "b.txt")) {
            XCTAssertTrue("\($0)".hasPrefix("b.txt:1:"))
        }
        XCTAssertThrowsError(try Baseline.parse("\nxyz # r\n", file: "b.txt")) {
            XCTAssertTrue("\($0)".hasPrefix("b.txt:2:"))
        }
    }

    func testGitHubEscaping() {
        XCTAssertEqual(
            GitHubAnnotations.line(level: "error", title: "a:b,c", message: "50% done\nnext"),
            "::error title=a%3Ab%2Cc::50%25 done%0Anext")
    }
}
