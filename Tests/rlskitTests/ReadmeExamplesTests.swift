import Foundation
import TestSupport
import XCTest

/// The README, CONTRIBUTING.md and docs/ as a reader finds them: a short README whose quick start
/// is two commands, examples that keep passwords off command lines, and links that lead somewhere.
final class ReadmeExamplesTests: XCTestCase {
    /// The examples never put a database URL (and its password) on a command line, where `ps`
    /// shows it to every local user: they take it from the environment.
    func testExamplesKeepDatabaseURLsOffTheCommandLine() throws {
        for page in try DocPage.all() {
            for block in try DocPage.codeBlocks(page) {
                for (n, line) in block.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    guard line.contains("rlskit ") else { continue }
                    for bad in [
                        "--database-url \"$", "--database-url $", "--database-url \"${{", "--against \"$",
                        "postgresql://",
                    ] {
                        XCTAssertFalse(
                            line.contains(bad) && !line.contains("ConnectionString("),
                            "\(page):\(block.line + n + 1): \(line)")
                    }
                }
            }
        }
    }

    /// Every relative link names a file that exists and, after `#`, a heading of that page.
    func testEveryRelativeLinkResolves() throws {
        let root = URL(fileURLWithPath: Provisioned.repositoryRoot)
        let pages = try DocPage.all()
        XCTAssertTrue(pages.contains("docs/README.md"), "\(pages)")
        var checked = 0
        for page in pages {
            let dir = root.appendingPathComponent(page).deletingLastPathComponent()
            for (target, line) in try DocPage.relativeLinks(page) {
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = String(parts[0])
                let url = file.isEmpty ? root.appendingPathComponent(page) : dir.appendingPathComponent(file)
                let relative = url.standardizedFileURL.path.replacingOccurrences(
                    of: root.standardizedFileURL.path + "/", with: "")
                guard FileManager.default.fileExists(atPath: url.path) else {
                    XCTFail("\(page):\(line): \(target): no file \(relative)")
                    continue
                }
                guard parts.count == 2 else { continue }
                XCTAssertTrue(
                    relative.hasSuffix(".md"), "\(page):\(line): \(target): an anchor in a file that is not a page")
                let anchors = try DocPage.anchors(relative)
                XCTAssertTrue(
                    anchors.contains(String(parts[1])),
                    "\(page):\(line): \(target): no heading #\(parts[1]) in \(relative) (\(anchors.sorted()))")
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// GitHub's anchors, as the link test reads them.
    func testAnchorsAsGitHubWritesThem() {
        XCTAssertEqual(DocPage.anchor("The main job: `rlskit check`"), "the-main-job-rlskit-check")
        XCTAssertEqual(DocPage.anchor("`config.toml`"), "configtoml")
        XCTAssertEqual(DocPage.anchor("Every command's options"), "every-commands-options")
        XCTAssertEqual(DocPage.anchor("Team folders (`ownership group`)"), "team-folders-ownership-group")
        XCTAssertEqual(DocPage.anchor("`--jobs N`"), "--jobs-n")
    }

    /// docs/README.md links every page of docs/ (the lint pages through their own index).
    func testTheIndexLinksEveryPage() throws {
        let linked = Set(try DocPage.relativeLinks("docs/README.md").map { $0.target.split(separator: "#")[0] })
        for page in try DocPage.all() where page.hasPrefix("docs/") && page != "docs/README.md" {
            let name = String(page.dropFirst(5))
            if name.hasPrefix("lints/") && name != "lints/README.md" { continue }
            XCTAssertTrue(linked.contains(Substring(name)), "docs/README.md does not link \(name)")
        }
    }

    /// A newcomer reads the README in five minutes: at most 300 lines, and the quick start is
    /// exactly two commands.
    func testTheREADMEIsShortAndItsQuickStartIsTwoCommands() throws {
        let readme = try DocPage.read("README.md")
        XCTAssertLessThanOrEqual(readme.split(separator: "\n", omittingEmptySubsequences: false).count, 300)
        let quickStart = try DocPage.block(after: "## Quick start", in: "README.md")
        let commands = quickStart.split(separator: "\n").map {
            $0.split(separator: "#")[0].trimmingCharacters(in: .whitespaces)
        }
        XCTAssertEqual(commands, ["./scripts/check", "./scripts/test"])
    }

    /// The README's GitHub workflow and GitLab job are the ones docs/ci.md explains (and
    /// CIActionTests runs).
    func testTheREADMEWorkflowIsTheCIPageOne() throws {
        for start in ["# .github/workflows/rls.yml", "# .gitlab-ci.yml"] {
            XCTAssertEqual(
                try DocPage.block(startingWith: start, in: "README.md"),
                try DocPage.block(startingWith: start, in: "docs/ci.md"), start)
        }
    }
}
