import Foundation
import XCTest

/// The build tool that compiles sql/ into the binary: an unchanged output must not be
/// rewritten, or every build (any change of environment) recompiles the whole library.
final class EmbedSQLTests: XCTestCase {
    var tool: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("embed-sql")
            .path
    }

    func run(_ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func modified(_ path: String) throws -> Date {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    func testUnchangedOutputIsNotRewrittenAndChangedOutputIs() throws {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            return XCTFail("\(tool) is missing: embed-sql is built with the package (swift build --build-tests)")
        }
        let dir = NSTemporaryDirectory() + "embed-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: dir + "/sql", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "select 1;\n".write(toFile: dir + "/sql/a.sql", atomically: true, encoding: .utf8)
        let out = dir + "/Embedded.swift"
        XCTAssertEqual(try run([dir + "/sql", out]), 0)
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: out)
        XCTAssertEqual(try run([dir + "/sql", out]), 0)
        XCTAssertEqual(
            try modified(out).timeIntervalSince1970, old.timeIntervalSince1970, accuracy: 1,
            "an unchanged output was rewritten")

        try "select 2;\n".write(toFile: dir + "/sql/a.sql", atomically: true, encoding: .utf8)
        XCTAssertEqual(try run([dir + "/sql", out]), 0)
        XCTAssertGreaterThan(try modified(out), old.addingTimeInterval(60))
        XCTAssertTrue(try String(contentsOfFile: out, encoding: .utf8).contains("select 2;"))
    }
}
