import TestSupport
import XCTest

@testable import rlskit

final class ArgumentsTests: XCTestCase {
    let spec = CommandSpec(
        name: "demo", summary: "s", positionals: "[PATH…]", maxPositionals: 2,
        options: [
            .option("database-url", "URL", "db"),
            .option("format", "FMT", "f"),
            .option("exposed-schema", "S", "e", repeatable: true),
            .flag("strict", "strict"),
            OptionSpec(name: "jobs", short: "j", value: "N", help: "jobs"),
        ])

    func testParsesEveryForm() throws {
        let p = try spec.parse([
            "--database-url", "postgresql://x", "--format=json", "-j", "4", "--strict",
            "--exposed-schema", "a", "--exposed-schema=b", "one", "--", "--two",
        ])
        XCTAssertEqual(p.value("database-url"), "postgresql://x")
        XCTAssertEqual(p.value("format"), "json")
        XCTAssertEqual(p.value("jobs"), "4")
        XCTAssertTrue(p.flag("strict"))
        XCTAssertEqual(p.all("exposed-schema"), ["a", "b"])
        XCTAssertEqual(p.positionals, ["one", "--two"])
    }

    func testErrors() {
        func message(_ args: [String]) -> String? {
            do {
                _ = try spec.parse(args)
                return nil
            } catch { return error.message }
        }
        XCTAssertEqual(message(["--nope"]), "unknown option '--nope'")
        XCTAssertEqual(message(["-x"]), "unknown option '-x'")
        XCTAssertEqual(message(["--format"]), "option '--format' needs a value (FMT)")
        XCTAssertEqual(message(["--strict=yes"]), "option '--strict' takes no value")
        XCTAssertEqual(message(["--format", "a", "--format", "b"]), "option '--format' given twice")
        XCTAssertEqual(message(["a", "b", "c"]), "too many arguments")
        XCTAssertNil(message(["-h"]))
    }

    func testMistypedOptionsSuggestTheClosest() {
        func message(_ args: [String]) -> String? {
            do {
                _ = try spec.parse(args)
                return nil
            } catch { return error.message }
        }
        XCTAssertEqual(
            message(["--databse-url", "x"]), "unknown option '--databse-url' (did you mean '--database-url'?)")
        XCTAssertEqual(message(["--fromat", "json"]), "unknown option '--fromat' (did you mean '--format'?)")
        XCTAssertEqual(message(["--stirct"]), "unknown option '--stirct' (did you mean '--strict'?)")
        XCTAssertEqual(message(["--data", "x"]), "unknown option '--data' (did you mean '--database-url'?)")
        XCTAssertEqual(message(["--hlep"]), "unknown option '--hlep' (did you mean '--help'?)")
        XCTAssertEqual(message(["--zzz"]), "unknown option '--zzz'")
        XCTAssertEqual(Suggestion.closest(to: "chek", among: ["check", "test", "apply"]), "check")
        XCTAssertNil(Suggestion.closest(to: "frobnicate", among: ["check", "test", "apply"]))
    }

    func testHelpListsEveryOption() {
        let help = spec.help
        for o in spec.options { XCTAssertTrue(help.contains("--\(o.name)"), o.name) }
        XCTAssertTrue(help.contains("-j, --jobs N"))
        XCTAssertTrue(help.contains("usage: rlskit demo [options] [PATH…]"))
    }
}

extension ArgumentsTests {
    func testRandomArgumentsAndDurationsNeverCrash() {
        let pieces = [
            "--", "-", "-j", "-h", "--format", "--format=", "=", "--strict", "--strict=1", "x", "", "--exposed-schema",
            "-jj", "--database-url=a=b", "é", "--jobs",
        ]
        for _ in 0..<3000 {
            let args = (0..<Int.random(in: 0...6)).map { _ in pieces.randomElement()! }
            _ = try? spec.parse(args)
        }
        for text in [
            "", "s", "ms", "1e309s", "-0", "nan", "inf", "0x10", "1_000", "  5s ", "5 s", "9999999999999h", "1.5m",
            ".5s", "5S",
        ] {
            _ = try? duration(text, "x")
        }
        XCTAssertEqual(try duration("1.5m", "x"), 90)
        XCTAssertEqual(try duration("500ms", "x"), 0.5)
        XCTAssertThrowsError(try duration("0", "x"))
    }
}

extension ArgumentsTests {
    /// docs/reference.md lists every command and every option: each command's section is its
    /// `--help` (`scripts/docs-reference` rewrites them).
    func testREADMEDocumentsEveryOption() throws {
        let page = "docs/reference.md"
        let reference = try DocPage.section("## Every command's options", in: page)
        for c in Commands.all {
            XCTAssertTrue(reference.contains("usage: rlskit \(c.spec.name)"), c.spec.name)
            for o in c.spec.options {
                XCTAssertTrue(reference.contains("--\(o.name)"), "\(c.spec.name) --\(o.name)")
            }
            let help = try DocPage.block(after: "### `rlskit \(c.spec.name)`", in: page)
            XCTAssertEqual(help + "\n", c.spec.help, "\(page): rlskit \(c.spec.name): run scripts/docs-reference")
        }
        let headings = reference.split(separator: "\n").filter { $0.hasPrefix("### ") }
        XCTAssertEqual(headings.map(String.init), Commands.all.map { "### `rlskit \($0.spec.name)`" })
    }
}
