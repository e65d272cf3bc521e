@_spi(CLI) import RLSKit
import XCTest

final class FilePathTests: XCTestCase {
    func testParentAsNSStringGivesItWithoutTrappingOnOneCharacter() {
        let cases: [(String, String)] = [
            ("m", ""), ("m/", ""), (".", ""), ("x.json", ""), ("a/m", "a"), ("a/m/", "a"), ("./m", "."),
            ("/m", "/"), ("/", "/"), ("a//m", "a"), ("/a/b/c.sql", "/a/b"), ("supabase/migrations", "supabase"),
        ]
        for (path, parent) in cases { XCTAssertEqual(FilePath.parent(path), parent, path) }
    }
}
