import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// The cache holds what the server loads (the sandbox module) and starts from (templates): only
/// files and folders made as rlskit makes them (0600, 0700) are used. A cache that arrived in a
/// checkout or an archive (0644, 0755), even one owned by this user, is rebuilt or refused.
final class CacheTrustTests: CacheTestCase {
    var saved: String?

    override func setUpWithError() throws {
        try super.setUpWithError()
        saved = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        setenv("XDG_CACHE_HOME", cache, 1)
    }

    override func tearDown() {
        if let saved { setenv("XDG_CACHE_HOME", saved, 1) } else { unsetenv("XDG_CACHE_HOME") }
        super.tearDown()
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return st.st_mode & 0o777
    }

    func testAModuleOthersMayReadIsBuiltAgain() throws {
        let bin = try LocalCluster.findBinDirectory()
        let real = try Sandbox.module(bin: bin)
        let folder = cache + "/rlskit"
        let name = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("rlskit_sandbox-") })
        XCTAssertEqual(mode(folder + "/" + name), 0o600)
        XCTAssertEqual(try Sandbox.module(bin: bin), real, "the cached module is used")
        // Planted as a checkout leaves it: 0644, this user's.
        let planted = Data("not the sandbox".utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: planted))
        XCTAssertEqual(chmod(folder + "/" + name, 0o644), 0)
        // Built again (the compiler's output names its temporary folder, so not the same bytes).
        let rebuilt = try Sandbox.module(bin: bin)
        XCTAssertNotEqual(rebuilt, planted)
        XCTAssertEqual(rebuilt.count, real.count)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/" + name), rebuilt)
        XCTAssertEqual(mode(folder + "/" + name), 0o600)
    }

    func testACacheFolderOthersMayReadIsNotUsed() throws {
        XCTAssertEqual(mkdir(cache + "/rlskit", 0o700), 0)
        XCTAssertEqual(chmod(cache + "/rlskit", 0o755), 0)
        XCTAssertThrowsError(try Sandbox.privateCacheFolder()) { error in
            XCTAssertTrue("\(error)".contains("rlskit is not private"), "\(error)")
        }
        XCTAssertEqual(chmod(cache + "/rlskit", 0o700), 0)
        XCTAssertEqual(try Sandbox.privateCacheFolder(), cache + "/rlskit")
    }
}
