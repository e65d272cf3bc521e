import Foundation
import TestSupport
import XCTest

@testable import Postgres

/// Saving a template into the cache: a disk that fills up while saving keeps nothing (no
/// half template, no temporary folder), and the next save on a disk with room works.
final class ClusterTemplateSaveTests: CacheTestCase {
    func source() throws -> String {
        let dir = cache + "/source"
        XCTAssertEqual(mkdir(dir, 0o700), 0)
        XCTAssertEqual(mkdir(dir + "/base", 0o700), 0)
        let page = Data(repeating: 7, count: 64 * 1024)
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/PG_VERSION", contents: Data("15\n".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/base/1", contents: page))
        return dir
    }

    func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).filter { $0 != "source" }.sorted()
    }

    /// Writes past a file-size limit fail as writes to a full disk do (EFBIG instead of ENOSPC).
    func withFullDisk(_ body: () -> Void) {
        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        let oldSignal = signal(SIGXFSZ, SIG_IGN)
        var small = old
        small.rlim_cur = 16 * 1024
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &small)
        body()
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        signal(SIGXFSZ, oldSignal)
    }

    func testAFullDiskWhileSavingKeepsNothing() throws {
        let src = try source()
        let template = ClusterTemplate(folder: cache + "/cluster-test")
        withFullDisk { template.save(from: src) }
        XCTAssertEqual(entries(), [])
        XCTAssertFalse(template.isUsable)
        template.save(from: src)
        XCTAssertEqual(entries(), ["cluster-test"])
        XCTAssertTrue(template.isUsable)
        let copied = try Data(contentsOf: URL(fileURLWithPath: template.data + "/base/1"))
        XCTAssertEqual(copied.count, 64 * 1024)
    }

    /// The same through `saveBeside`: the staging copy in the run's folder fails first, and the
    /// run goes on with nothing written to the cache.
    func testAFullDiskBesideTheRunKeepsNothing() throws {
        let src = try source()
        let template = ClusterTemplate(folder: cache + "/cluster-test")
        let staging = cache + "/staging"
        withFullDisk {
            template.saveBeside(from: src, staging: staging, gate: {}).wait()
        }
        XCTAssertFalse(template.isUsable)
        XCTAssertFalse(FileManager.default.fileExists(atPath: template.folder))
        XCTAssertEqual(entries().filter { $0.contains(".tmp-") }, [])
    }

    /// Another server build or other initdb arguments name another template (the run's own
    /// data folder does not count); another rlskit's templates differ by `format` the same way.
    func testAnotherServerBuildOrArgumentsIsAnotherTemplate() throws {
        let bin = cache + "/bin"
        XCTAssertEqual(mkdir(bin, 0o700), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: bin + "/postgres", contents: Data("a".utf8)))
        let args = ["-D", "/tmp/x", "-U", "postgres"]
        let one = ClusterTemplate(root: cache, bin: bin, initdb: args)
        XCTAssertEqual(
            one.folder, ClusterTemplate(root: cache, bin: bin, initdb: ["-D", "/tmp/y", "-U", "postgres"]).folder)
        XCTAssertNotEqual(
            one.folder, ClusterTemplate(root: cache, bin: bin, initdb: ["-D", "/tmp/x", "-U", "other"]).folder)
        XCTAssertTrue(FileManager.default.createFile(atPath: bin + "/postgres", contents: Data("another build".utf8)))
        XCTAssertNotEqual(one.folder, ClusterTemplate(root: cache, bin: bin, initdb: args).folder)
    }

    /// A prepared template's key follows the server module's bytes, not only its size: a
    /// rebuilt module of the same length is another template.
    func testAnotherServerModuleOfTheSameSizeIsAnotherShape() {
        var a = LocalCluster.Options()
        a.serverModules = ["guard.so": Data([1, 2, 3, 4])]
        var b = a
        b.serverModules = ["guard.so": Data([1, 2, 3, 5])]
        XCTAssertNotEqual(LocalCluster.shape(a), LocalCluster.shape(b))
        XCTAssertEqual(LocalCluster.shape(a), LocalCluster.shape(a))
    }
}
