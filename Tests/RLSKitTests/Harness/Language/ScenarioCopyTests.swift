import Foundation
import XCTest

@testable import RLSKit

/// A COPY over the connection in a scenario step would wait for data no step sends or reads:
/// it is one file:line mistake before anything runs, in every spelling.
final class ScenarioCopyTests: XCTestCase {
    func parse(_ step: String) -> InputError? {
        let text = "scenario copies\n  user alice\n  as alice: \(step)\n    expect 1 row\n"
        do {
            _ = try ScenarioFile.parse(text, path: "t.scenario")
            return nil
        } catch { return error }
    }

    func testCopyThroughTheConnectionIsRefusedAtItsLine() {
        for step in [
            "copy public.notes to stdout", "COPY public.notes FROM STDIN",
            "copy (select a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p from public.notes where a = 1) to stdout with (format csv)",
            "copy public.notes (id, body) from stdin with csv",
        ] {
            let e = parse(step)
            XCTAssertEqual(e?.location.line, 3, step)
            XCTAssertTrue(
                e?.message.contains("COPY … FROM STDIN / TO STDOUT") ?? false, "\(step): \(String(describing: e))")
        }
    }

    func testOtherStatementsNamingCopyStillParse() {
        for step in ["select 'copy to stdout'", "insert into public.copies (stdout) values (1)"] {
            XCTAssertNil(parse(step), step)
        }
    }
}
