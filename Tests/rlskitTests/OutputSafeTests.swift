import Foundation
import XCTest

@testable import rlskit

/// `Output.safe`, the one function every write to standard output and error goes through.
final class OutputSafeTests: XCTestCase {
    func testKindsEscapeAsTheirFormatNeeds() {
        let name = "t\n::add-mask::x \u{1B}[2J ##[error]y"
        XCTAssertEqual(Output.safe(name, as: .text), "t\n\\u{3a}:add-mask::x \\u{1b}[2J #\\u{23}[error]y")
        XCTAssertEqual(
            Output.safe("::error title=a::b \u{1B}\n", as: .annotations), "::error title=a::b \\u{1b}\n")
        // A document's bytes are its own format's business.
        XCTAssertEqual(Output.safe("{\"a\": \"b\"}\n", as: .document), "{\"a\": \"b\"}\n")
    }

    /// A key read from the environment is masked in every kind, also in part or encoded.
    func testAHiddenSecretNeverComesOut() {
        let key = "svc-" + UUID().uuidString
        Output.hide(key)
        let b64 = Data(key.utf8).base64EncodedString()
        for kind in [OutputKind.text, .annotations, .document] {
            for echo in [key, String(key.prefix(12)), String(key.suffix(10)), b64] {
                let shown = Output.safe("error: \(echo)!", as: kind)
                XCTAssertEqual(shown, "error: ***!", "\(kind) \(echo)")
            }
        }
    }
}
