import Foundation
import Postgres
import Synchronization
import XCTest

/// Removing a cluster's folder never follows a link, even one swapped in while it runs: the
/// server's OS user owns part of the tree and can do that at any moment.
final class TreeRemovalTests: XCTestCase {
    var outside = ""

    override func setUpWithError() throws {
        outside = NSTemporaryDirectory() + "rlskit-outside-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for i in 0..<200 {
            _ = FileManager.default.createFile(atPath: outside + "/keep-\(i)", contents: Data("x".utf8))
        }
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: outside) }

    func survivors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: outside))?.count ?? 0 }

    func testLinksInTheTreeAreRemovedNotFollowed() throws {
        let tree = NSTemporaryDirectory() + "rlskit-tree-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: tree + "/data/base", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: tree + "/data/link", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(
            atPath: tree + "/data/base/file-link", withDestinationPath: outside + "/keep-0")
        XCTAssertTrue(TreeRemoval.remove(tree))
        XCTAssertFalse(FileManager.default.fileExists(atPath: tree))
        XCTAssertEqual(survivors(), 200)
    }

    /// A folder swapped for a link to `outside` while the removal runs, many times over.
    func testAFolderSwappedForALinkDuringRemovalLeavesItsTargetAlone() throws {
        for round in 0..<20 {
            let tree = NSTemporaryDirectory() + "rlskit-race-\(round)-" + UUID().uuidString.prefix(8)
            let victim = tree + "/data/sub"
            try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
            for i in 0..<300 { _ = FileManager.default.createFile(atPath: victim + "/f\(i)", contents: Data()) }
            let stop = Flag()
            let done = DispatchSemaphore(value: 0)
            let target = outside
            let swapper = Thread {
                while !stop.value.load(ordering: .relaxed) {
                    // What a hostile server user would do: move the folder away, put a link there.
                    if rename(victim, tree + "/moved") == 0 { _ = symlink(target, victim) }
                    unlink(victim)
                    _ = mkdir(victim, 0o755)
                }
                done.signal()
            }
            swapper.start()
            TreeRemoval.remove(tree)
            stop.value.store(true, ordering: .relaxed)
            done.wait()
            TreeRemoval.remove(tree)
            XCTAssertEqual(survivors(), 200, "round \(round)")
        }
    }
}

final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
