import Foundation
import Postgres
import XCTest

/// A test case that makes folders of files and databases and removes them all afterwards.
open class ScratchTestCase: XCTestCase {
    public var dirs: [String] = []
    public var dbs: [String] = []

    open override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
        for d in dbs { TestServer.drop(d) }
        dirs = []
        dbs = []
        super.tearDown()
    }

    /// A new folder holding `files` (names may have subfolders).
    public func folder(_ files: [String: String]) throws -> String {
        let dir = try CLI.temporaryDirectory()
        dirs.append(dir)
        for (name, text) in files {
            let path = dir + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        return dir
    }

    /// A new empty database on the test server, dropped afterwards.
    public func database(prefix: String) throws -> PostgresConnection {
        let db = try TestServer.makeDatabase(prefix: prefix)
        dbs.append(db.name)
        return try PostgresConnection(db.connectionString)
    }
}
