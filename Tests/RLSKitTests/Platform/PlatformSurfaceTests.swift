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

    /// docs/fidelity.md is generated from the record; `RLSKIT_REGENERATE=1` rewrites it.
    func testFidelityPageIsCurrent() throws {
        let page = PlatformSurface.fidelityPage(try PlatformSurface.recorded())
        let path = StandIn.root.path + "/docs/fidelity.md"
        if ProcessInfo.processInfo.environment["RLSKIT_REGENERATE"] == "1" {
            try page.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(
            try? String(contentsOfFile: path, encoding: .utf8), page,
            "docs/fidelity.md is out of date: run RLSKIT_REGENERATE=1 swift test --filter PlatformSurfaceTests")
    }

    func testParseRefusesMalformedLines() {
        XCTAssertThrowsError(try PlatformSurface.parse("[surface]\nrole\tanon\tflags\n"))
        XCTAssertThrowsError(try PlatformSurface.parse("[surface]\nrole\tanon\tflags\tx\nrole\tanon\tflags\ty\n"))
        XCTAssertThrowsError(try PlatformSurface.parse("[known]\nrole\tanon\tflags\tx\ty\n"))
        XCTAssertThrowsError(try PlatformSurface.parse("role\tanon\tflags\tx\n"))
    }

    func testCompareReportsEachSide() {
        typealias R = PlatformSurface.Record
        let platform = [
            R(kind: "role", object: "anon", attribute: "flags", value: "inherit"),
            R(kind: "role", object: "gone", attribute: "flags", value: "-"),
            R(kind: "schema", object: "graphql", attribute: "exists", value: "no"),
            R(kind: "role", object: "anon", attribute: "config.x", value: "?"),
        ]
        let live = [
            R(kind: "role", object: "anon", attribute: "flags", value: "login"),
            R(kind: "role", object: "anon", attribute: "config.x", value: "1"),
            R(kind: "role", object: "extra", attribute: "flags", value: "-"),
        ]
        XCTAssertEqual(
            PlatformSurface.compare(recorded: platform, live: live).map(\.description),
            [
                "role anon flags: platform inherit vs stand-in login", "role gone exists: platform yes vs stand-in no",
                "role extra exists: platform no vs stand-in yes",
            ])
    }
}
