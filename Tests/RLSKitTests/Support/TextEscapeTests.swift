@_spi(CLI) import RLSKit
import XCTest

/// What may never reach a terminal or a CI log raw, spelled out here independently of the code.
func rawUnsafe(_ s: String, keeping kept: Set<Unicode.Scalar> = ["\n"]) -> [Unicode.Scalar] {
    s.unicodeScalars.filter { u in
        guard !kept.contains(u) else { return false }
        switch u.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

/// Lines a GitHub Actions runner would read as a workflow command: `::` first after blanks
/// (it trims any whitespace), or the old `##[` form anywhere.
func workflowCommandLines(_ s: String) -> [String] {
    s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
        let trimmed = line.unicodeScalars.drop { $0.properties.isWhitespace }
        return String(String.UnicodeScalarView(trimmed)).hasPrefix("::") || line.contains("##[")
    }
}

final class TextEscapeTests: XCTestCase {
    static let hostile = [
        "x\n::add-mask::secret",  // a new line that is a workflow command
        "link \u{1B}]8;;https://evil.example\u{7}click\u{1B}]8;;\u{7}",  // OSC 8 hyperlink, BEL
        "wipe \u{1B}[2J\u{1B}[H\u{9B}31m",  // CSI, and the one-byte C1 CSI
        "exe\u{202E}gnp.\u{2066}x\u{2069}",  // bidi override and isolate
        "sep\u{2028}::error::u\u{2029}",  // line and paragraph separators
        "cr\r::warning::v\u{7F}\u{85}",  // carriage return, DEL, NEL
    ]

    func testLineEscapesEveryUnsafeCharacterVisibly() {
        for s in Self.hostile {
            let line = TextEscape.line(s)
            XCTAssertEqual(rawUnsafe(line, keeping: []), [], line)
            XCTAssertFalse(line.contains("\n"), line)
        }
        XCTAssertEqual(TextEscape.line("a\u{1B}[2Jb\nc\u{202E}"), "a\\u{1b}[2Jb\\u{a}c\\u{202e}")
        XCTAssertEqual(TextEscape.line("plain é 🙂 \\u{1b} # ## #["), "plain é 🙂 \\u{1b} # ## #[")
        XCTAssertEqual(TextEscape.line("old ##[error]form"), "old #\\u{23}[error]form")
    }

    func testTextKeepsLinesButNoneIsAWorkflowCommand() {
        for s in Self.hostile {
            let text = TextEscape.text("report\n" + s + "\n  " + s + "\n")
            XCTAssertEqual(rawUnsafe(text), [], text)
            XCTAssertEqual(workflowCommandLines(text), [], text)
        }
        let text = TextEscape.text(
            "::error::a\n\t ::add-mask::b\n\u{A0}\u{3000}::notice::c\nin the middle ::d:: stays\nold ##[error]form\r\nend"
        )
        XCTAssertEqual(workflowCommandLines(text), [], text)
        XCTAssertEqual(
            text,
            "\\u{3a}:error::a\n\t \\u{3a}:add-mask::b\n\u{A0}\u{3000}\\u{3a}:notice::c\nin the middle ::d:: stays\nold #\\u{23}[error]form\nend"
        )
        // The same text twice: nothing more to escape.
        XCTAssertEqual(TextEscape.text(text), text)
    }

    func testOnlyRlskitsOwnColourCodesPassAndOnlyWithColour() {
        let s = "\u{1B}[1;31mERROR\u{1B}[0m \u{1B}[8mhidden\u{1B}[0m \u{1B}]0;title\u{7} \u{1B}[31;1m"
        XCTAssertEqual(
            TextEscape.text(s, color: true),
            "\u{1B}[1;31mERROR\u{1B}[0m \\u{1b}[8mhidden\u{1B}[0m \\u{1b}]0;title\\u{7} \\u{1b}[31;1m")
        XCTAssertEqual(rawUnsafe(TextEscape.text(s)), [])
    }

    func testAnnotationsRlskitWritesStayCommands() {
        let s = "::error file=a.rls,line=3,title=x::y\n::warning title=z::w\n"
        XCTAssertEqual(TextEscape.text(s, workflowCommands: true), s)
    }
}
