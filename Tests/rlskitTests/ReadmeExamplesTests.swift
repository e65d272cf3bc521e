import Foundation
import XCTest

final class ReadmeExamplesTests: XCTestCase {
    /// The README's examples never put a database URL (and its password) on a command line,
    /// where `ps` shows it to every local user: they take it from the environment.
    func testExamplesKeepDatabaseURLsOffTheCommandLine() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let readme = try String(contentsOf: url.appendingPathComponent("README.md"), encoding: .utf8)
        var inCode = false
        for (n, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard inCode, line.contains("rlskit ") else { continue }
            for bad in [
                "--database-url \"$", "--database-url $", "--database-url \"${{", "--against \"$", "postgresql://",
            ] {
                XCTAssertFalse(line.contains(bad) && !line.contains("ConnectionString("), "README.md:\(n + 1): \(line)")
            }
        }
    }
}
