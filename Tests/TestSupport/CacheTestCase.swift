import Foundation
import Postgres
import XCTest

/// A test case with a private cache folder of its own (`cache`), removed afterwards.
open class CacheTestCase: XCTestCase {
    public var cache = ""

    open override func setUpWithError() throws {
        cache = NSTemporaryDirectory() + "rlskit-cache-" + UUID().uuidString.prefix(8)
        XCTAssertEqual(mkdir(cache, 0o700), 0)
    }

    open override func tearDown() {
        TreeRemoval.remove(cache)
        super.tearDown()
    }
}
