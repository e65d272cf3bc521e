import Foundation
import Postgres
import TestSupport
import XCTest

/// initdb's output kept in a private cache folder: a warm start copies it (no initdb) and still
/// gets its own passwords; a cache folder another user could write, a link in a template or a
/// template that does not match its password is never used; two first runs at once both work.
final class ClusterTemplateTests: CacheTestCase {
    /// A superuser other than postgres, as a caller of `Options.bootstrap` chooses it.
    static let bootstrap = LocalCluster.Bootstrap(
        superuser: "cluster_admin", setup: "create role postgres login nosuperuser;")

    var options: LocalCluster.Options {
        var o = LocalCluster.Options()
        o.bootstrap = Self.bootstrap
        o.clusterCache = cache
        return o
    }

    func templates() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).filter { $0.hasPrefix("cluster-") }
    }

    func ranInitdb(_ c: LocalCluster) -> Bool { FileManager.default.fileExists(atPath: c.directory + "/initdb.log") }

    func assertWorks(_ c: LocalCluster, file: StaticString = #filePath, line: UInt = #line) throws {
        let admin = try PostgresConnection(c.adminConnectionString)
        XCTAssertEqual(
            try admin.query("select current_user::text as u").rows[0].decode("u") as String, Self.bootstrap.superuser)
        let pg = try PostgresConnection(c.connectionString)
        XCTAssertEqual(
            try pg.query("select rolsuper from pg_roles where rolname = current_user").rows[0].decode(0) as Bool, false)
    }

    func testAWarmStartCopiesTheTemplate() throws {
        let first = try LocalCluster(options: options)
        defer { first.stop() }
        XCTAssertTrue(ranInitdb(first))
        // Written to the cache beside the run: the run does not wait for the disk.
        first.waitForCacheWrite()
        XCTAssertEqual(templates().count, 1)
        // The template holds initdb's output only: no password, no settings of a run.
        let kept = cache + "/" + templates()[0]
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: kept), ["data"])
        let second = try LocalCluster(options: options)
        defer { second.stop() }
        XCTAssertFalse(ranInitdb(second))
        try assertWorks(second)
        try assertWorks(first)
    }

    /// A run killed while saving leaves `<name>.tmp-<pid>-<n>`: the next save removes it once
    /// that pid is gone, and never a save in progress.
    func testAHalfSavedTemplateOfAKilledRunIsRemoved() throws {
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let abandoned = cache + "/cluster-0.tmp-\(dead.processIdentifier)-1"
        let live = cache + "/cluster-0.tmp-\(getpid())-2"
        for d in [abandoned, live] {
            XCTAssertEqual(mkdir(d, 0o700), 0)
            XCTAssertEqual(mkdir(d + "/data", 0o700), 0)
        }
        let c = try LocalCluster(options: options)
        defer { c.stop() }
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live))
        TreeRemoval.remove(live)
    }

    func testACacheOthersCouldWriteIsNotUsed() throws {
        let first = try LocalCluster(options: options)
        first.stop()
        let template = cache + "/" + templates()[0]
        chmod(template, 0o777)
        let second = try LocalCluster(options: options)
        defer { second.stop() }
        XCTAssertTrue(ranInitdb(second))
        try assertWorks(second)
    }

    /// As a checkout or an unpacked archive leaves folders: readable by others, so not made here.
    func testATemplateOthersMayReadIsNotUsed() throws {
        let first = try LocalCluster(options: options)
        first.stop()
        chmod(cache + "/" + templates()[0], 0o755)
        let second = try LocalCluster(options: options)
        defer { second.stop() }
        XCTAssertTrue(ranInitdb(second))
        try assertWorks(second)
    }

    func testALinkInTheTemplateMeansInitdb() throws {
        let first = try LocalCluster(options: options)
        first.stop()
        let data = cache + "/" + templates()[0] + "/data"
        XCTAssertEqual(symlink("/etc", data + "/planted"), 0)
        let second = try LocalCluster(options: options)
        defer { second.stop() }
        XCTAssertTrue(ranInitdb(second))
        XCTAssertFalse(FileManager.default.fileExists(atPath: second.directory + "/data/planted"))
        try assertWorks(second)
    }

    /// A hard link is a regular file too: one to a file elsewhere (the server's user can make
    /// them in initdb's output before it is saved) would have its contents copied into every run.
    func testAHardLinkInTheTemplateMeansInitdb() throws {
        let first = try LocalCluster(options: options)
        first.stop()
        let data = cache + "/" + templates()[0] + "/data"
        let outside = cache + "/outside-secret"
        XCTAssertTrue(FileManager.default.createFile(atPath: outside, contents: Data("TOPSECRET".utf8)))
        XCTAssertEqual(link(outside, data + "/planted"), 0)
        let second = try LocalCluster(options: options)
        defer { second.stop() }
        XCTAssertTrue(ranInitdb(second))
        XCTAssertFalse(FileManager.default.fileExists(atPath: second.directory + "/data/planted"))
        try assertWorks(second)
    }

    func testATemplateThatCannotStartIsDroppedWithOneLine() throws {
        let first = try LocalCluster(options: options)
        first.stop()
        XCTAssertEqual(unlink(cache + "/" + templates()[0] + "/data/global/pg_control"), 0)
        XCTAssertThrowsError(try LocalCluster(options: options)) { error in
            XCTAssertTrue("\(error)".contains("cached cluster template could not be used"), "\(error)")
        }
        XCTAssertEqual(templates(), [])
        let third = try LocalCluster(options: options)
        defer { third.stop() }
        try assertWorks(third)
    }

    func testTwoFirstRunsAtOnceBothWork() throws {
        let opts = options
        let group = DispatchGroup()
        let results = ResultBox()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                do {
                    let c = try LocalCluster(options: opts)
                    results.add(c)
                } catch { results.fail("\(error)") }
            }
        }
        group.wait()
        XCTAssertEqual(results.errors, [])
        for c in results.clusters {
            try assertWorks(c)
            c.stop()
        }
        XCTAssertEqual(templates().count, 1)
        XCTAssertEqual(
            (try FileManager.default.contentsOfDirectory(atPath: cache)).filter { $0.contains(".tmp-") }, [])
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var clusters: [LocalCluster] = []
    private(set) var errors: [String] = []
    func add(_ c: LocalCluster) { lock.withLock { clusters.append(c) } }
    func fail(_ e: String) { lock.withLock { errors.append(e) } }
}
