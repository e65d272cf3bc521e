import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A lock file with a value rlskit would misread, or of a newer format, is refused at its line.
final class LockFileValidationTests: XCTestCase {
    func testLockFileRejectsInvalidValuesAndNewerFormats() throws {
        let db = try OurSchema.makeDatabase()
        defer { TestServer.drop(db.name) }
        let good = try LockFile.render(SurfaceReader.read(PostgresConnection(db.connectionString)))
        XCTAssertNoThrow(try LockFile.parse(good, file: "p.lock"))
        let lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func mutate(_ key: String, _ value: String) throws -> (String, Int) {
            let i = try XCTUnwrap(
                lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }, key)
            var copy = lines
            copy[i] = String(lines[i].prefix { $0 == " " }) + key + ": " + value
            return (copy.joined(separator: "\n"), i + 1)
        }
        for (key, value) in [
            ("row level security", "maybe"), ("force row level security", "yes"), ("command", "FROB"),
            ("type", "lenient"), ("public", "perhaps"), ("file size limit", "big"),
        ] {
            let (text, line) = try mutate(key, value)
            XCTAssertThrowsError(try LockFile.parse(text, file: "p.lock")) { e in
                XCTAssertTrue(e is ConfigurationError)
                XCTAssertTrue("\(e)".hasPrefix("p.lock:\(line): "), "\(key) → \(e)")
                XCTAssertTrue("\(e)".contains(value), "\(e)")
            }
        }
        let newer = good.replacingOccurrences(of: "format 1", with: "format 9")
        XCTAssertThrowsError(try LockFile.parse(newer, file: "p.lock")) { e in
            XCTAssertTrue(
                "\(e)".hasPrefix("p.lock:1: lock file format 9 is newer than this rlskit understands (1)"), "\(e)")
        }
    }
}
