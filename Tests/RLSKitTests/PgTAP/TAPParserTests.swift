import XCTest

@testable import RLSKit

final class TAPParserTests: XCTestCase {
    func parse(_ text: String, complete: Bool = true) -> TAPSummary {
        TAPParser.parse(
            text.split(separator: "\n", omittingEmptySubsequences: false).map { TAPLine(String($0)) },
            complete: complete)
    }

    func testPassingStream() {
        let s = parse("1..2\nok 1 - first\nok 2 - second")
        XCTAssertTrue(s.passed)
        XCTAssertEqual(s.planned, 2)
        XCTAssertEqual(s.tests.map(\.description), ["first", "second"])
    }

    func testFailureCarriesDiagnostics() {
        let s = parse(
            "1..1\nnot ok 1 - math\n# Failed test 1: \"math\"\n#         have: 4\n#         want: 5\n# Looks like you failed 1 test of 1"
        )
        XCTAssertFalse(s.passed)
        XCTAssertEqual(s.failedCount, 1)
        XCTAssertEqual(s.tests[0].diagnostics, ["Failed test 1: \"math\"", "have: 4", "want: 5"])
    }

    func testPlanProblems() {
        XCTAssertEqual(
            parse("ok 1\nok 2").problems, ["no plan found in the TAP output (call plan(n), or no_plan() with finish())"]
        )
        XCTAssertEqual(parse("1..2\nok 1").problems, ["planned 2 tests but ran 1"])
        let many = parse("1..1\nok 1\nok 2")
        XCTAssertEqual(many.problems, ["planned 1 test but ran 2"])
        XCTAssertTrue(many.tests[1].unplanned)
        XCTAssertEqual(many.failedCount, 1)
        XCTAssertTrue(parse("ok 1\nok 2\n1..2").passed, "a plan at the end is fine")
        XCTAssertFalse(parse("ok 1\n1..2\nok 2").passed, "a plan in the middle is not")
        XCTAssertTrue(parse("1..1\n1..1\nok 1").problems.contains("more than one plan found in the TAP output"))
        XCTAssertTrue(parse("1..3\nok 1\nok 3\nok 4").problems.contains { $0.hasPrefix("tests out of sequence") })
    }

    func testStoppedEarlySaysTheShortPlanButNotAMissingOne() {
        XCTAssertEqual(parse("1..3\nok 1", complete: false).problems, ["planned 3 tests but ran 1"])
        XCTAssertEqual(parse("ok 1", complete: false).problems, [])
    }

    func testDirectives() {
        let s = parse(
            "1..4\nok 1 # SKIP no network\nnot ok 2 - later # TODO not built\nok 3 - done # todo surprise\nnot ok 4 # skip but failed"
        )
        XCTAssertEqual(s.tests.map(\.directive), [.skip, .todo, .todo, .skip])
        XCTAssertEqual(s.tests[0].reason, "no network")
        XCTAssertEqual(s.tests[1].description, "later")
        XCTAssertEqual(s.tests.map(\.isOK), [true, true, true, false], "not ok # SKIP still fails, as in TAP::Parser")
    }

    func testEscapedHashIsDescription() {
        let s = parse("1..1\nok 1 - issue \\# 12 # TODO later")
        XCTAssertEqual(s.tests[0].description, "issue # 12")
        XCTAssertEqual(s.tests[0].directive, .todo)
        XCTAssertEqual(parse("1..1\nok 1 - a # b").tests[0].description, "a # b")
    }

    func testSkipAllAndBailOut() {
        let skip = parse("1..0 # SKIP no pgTAP here")
        XCTAssertTrue(skip.passed)
        XCTAssertEqual(skip.skipAll, "no pgTAP here")
        let bail = parse("1..3\nok 1\nBail out! database down\nok 2")
        XCTAssertEqual(bail.bailOut, "database down")
        XCTAssertEqual(bail.tests.count, 1)
        XCTAssertFalse(bail.passed)
    }

    func testNonTAPLinesAreIgnored() {
        let s = parse("1..1\n3f1a0a53-8a2b-4a4c-9d3e-0b7c8c1f2e3d\n\nokay then\nok 1 - real\nnot okay")
        XCTAssertTrue(s.passed)
        XCTAssertEqual(s.tests.count, 1)
    }
}

final class PgTAPServerInfoTests: XCTestCase {
    func testMissingPgTAPNamesTheVersionedPackage() {
        let none = PgTAPServerInfo(
            pgtapInstalled: false, pgtapAvailable: false, helpersInstalled: false, majorVersion: 16)
        XCTAssertEqual(none.missingPackage, "postgresql-16-pgtap")
        XCTAssertNil(
            PgTAPServerInfo(pgtapInstalled: false, pgtapAvailable: true, helpersInstalled: false, majorVersion: 15)
                .missingPackage)
        XCTAssertNil(
            PgTAPServerInfo(pgtapInstalled: true, pgtapAvailable: false, helpersInstalled: false, majorVersion: 15)
                .missingPackage)
    }
}
