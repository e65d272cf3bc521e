import XCTest

@testable import RLSKit

/// Which helper bodies are read as one expression, and how a call is put in place.
final class PolicyHelperTests: XCTestCase {
    func text(_ body: String, _ language: String) -> String? {
        PolicyHelper.expression(body, language: language)?.map(\.text).joined(separator: " ")
    }

    func testPureBodiesAreOneExpression() {
        XCTAssertEqual(
            text("select exists (select 1 from m where m.a = x) -- why\n;", "sql"),
            "exists ( select 1 from m where m . a = x )")
        XCTAssertEqual(text("select role from m where user_id = auth.uid() limit 1", "sql")?.first, "(")
        XCTAssertEqual(text("begin return exists (select 1 from m); end;", "plpgsql"), "exists ( select 1 from m )")
        XCTAssertEqual(
            text("BEGIN RETURN QUERY SELECT org FROM m WHERE u = auth.uid(); END", "plpgsql"),
            "( SELECT org FROM m WHERE u = auth . uid ( ) )")
    }

    func testBodiesWithStatementsOrDeclarationsAreNot() {
        XCTAssertNil(text("declare x int; begin return x; end", "plpgsql"))
        XCTAssertNil(text("begin perform 1; return true; end", "plpgsql"))
        XCTAssertNil(text("select 1; select 2", "sql"))
        XCTAssertNil(text("update m set a = 1 returning true", "sql"))
        XCTAssertNil(text("return 1", "c"))
    }

    func testParametersTakeTheArgumentsUnlessAColumnShadowsThem() throws {
        let h = try XCTUnwrap(
            PolicyHelper(
                schema: "public", name: "f", language: "sql",
                body: "select exists (select 1 from m where m.org = org and m.team = p_team and m.n = $3)",
                argumentNames: ["org", "p_team", ""], argumentCount: 3))
        let columns: PolicyExpression.Scan.Columns = { $0 == "m" ? ["org", "team", "n"] : nil }
        XCTAssertEqual(
            h.inlined(["t.org", "t.team", "7"], columns: columns),
            "(exists ( select 1 from m where m . org = org and m . team = (t.team) and m . n = (7) ))")
        // In PL/pgSQL the same name is ambiguous: the call raises, so it is not read inline.
        var p = h
        p.language = "plpgsql"
        XCTAssertNil(p.inlined(["t.org", "t.team", "7"], columns: columns))
    }

    func testArgumentsNameThePolicysRow() {
        let args = PolicyExpression.Scan.arguments(
            PolicyExpression.Parser.parse("team_id, (storage.foldername(name))[1], 'x'"))
        XCTAssertEqual(
            args.map { PolicyExpression.Scan.qualified($0, table: "objects") },
            ["objects.team_id", "storage.foldername(objects.name)[1]", "'x'"])
    }
}
