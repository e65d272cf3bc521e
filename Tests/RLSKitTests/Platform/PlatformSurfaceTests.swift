import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// The stand-in's catalog against the platform's recorded surface (sql/platform/surface.tsv),
/// object by object, on a throwaway server set up as `rlskit check` sets it up.
final class PlatformSurfaceTests: XCTestCase {
    nonisolated(unsafe) static var cluster: LocalCluster?

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
    }

    /// The stand-in's surface: the sandbox server, the stand-in and the platform grants, no migration.
    func liveSurface(like records: [PlatformSurface.Record]) throws -> [PlatformSurface.Record] {
        if Self.cluster == nil {
            Self.cluster = try LocalCluster(options: Sandbox.options(PlatformExtensions.clusterOptions))
        }
        let c = Self.cluster!
        var options = Migrator.Options()
        options.projectConnection = c.connectionString
        _ = try Migrator.run(.none, options: options, on: c.adminConnectionString)
        let admin = try PostgresConnection(c.adminConnectionString)
        defer { admin.close() }
        return try PlatformSurface.read(admin, like: records)
    }

    func testStandInMatchesTheRecordedSurface() throws {
        let recorded = try PlatformSurface.recorded()
        let live = try liveSurface(like: recorded.records)
        if ProcessInfo.processInfo.environment["RLSKIT_PRINT_SURFACE"] == "1" {
            for r in live { print("LIVE\t\(r.kind)\t\(r.object)\t\(r.attribute)\t\(r.value)") }
        }
        let found = PlatformSurface.compare(recorded: recorded.records, live: live)
        if ProcessInfo.processInfo.environment["RLSKIT_PRINT_SURFACE"] == "1" {
            for d in found { print("DIFF\t\(d.kind)\t\(d.object)\t\(d.attribute)\t\(d.platform)\t\(d.standIn)") }
        }
        let known = Set(recorded.known.map(\.difference))
        let unexpected = found.filter { !known.contains($0) }
        let stale = recorded.known.map(\.difference).filter { !Set(found).contains($0) }
        XCTAssertTrue(
            unexpected.isEmpty,
            "differences from the platform not listed as known in sql/platform/surface.tsv:\n"
                + unexpected.map(\.description).joined(separator: "\n"))
        XCTAssertTrue(
            stale.isEmpty,
            "known differences no longer seen (remove them from sql/platform/surface.tsv):\n"
                + stale.map(\.description).joined(separator: "\n"))
    }
}
