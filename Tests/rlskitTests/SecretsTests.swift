import Foundation
import Postgres
import TestSupport
import XCTest

/// A password in the URL and a service key in the environment never appear in any output,
/// report file or server log line, on success and on every failure path.
final class SecretsTests: XCTestCase {
    func testSecretsNeverAppear() throws {
        let db = try TestServer.makeDatabase(prefix: "secret")
        defer { TestServer.drop(db.name) }
        let opts = try db.connectionString.options()
        guard let host = opts["host"], host.hasPrefix("/") else {
            throw XCTSkip("needs the socket server (trust auth accepts any password)")
        }
        let password = "pw-\(UUID().uuidString)"
        let key = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.\(UUID().uuidString)"
        let url = "postgresql://postgres:\(password)@/\(db.name)?host=\(host)"
        let badURL = "postgresql://postgres:\(password)@127.0.0.1:1/\(db.name)?connect_timeout=2"
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "create table t (x int);\nselect 1/0;".write(
            toFile: dir + "/001_bad.sql", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/tap", withIntermediateDirectories: true)
        try "select plan(2);\nselect ok(false, 'fails');\nselect nope;".write(
            toFile: dir + "/tap/t.sql", atomically: true, encoding: .utf8)
        let env = ["SERVICE_KEY": key]
        let runs: [[String]] = [
            [
                "apply", "--database-url", url, "--storage-url", "https://abc.supabase.co", "--service-key-env",
                "SERVICE_KEY",
            ],
            ["apply", "--database-url", url, "--dry-run"],
            ["apply", "--database-url", url, "--dir", dir, "--no-stand-in"],
            [
                "apply", "--database-url", badURL, "--storage-url", "https://abc.supabase.co", "--service-key-env",
                "SERVICE_KEY",
            ],
            ["apply", "--database-url", url + "&bogus_option=1"],
            ["check", "--database-url", url],
            ["check", "--database-url", badURL],
            ["pgtap", "--database-url", url, "--format", "junit", "--output", dir + "/out.xml", dir + "/tap"],
            ["pgtap", "--database-url", badURL, dir + "/tap"],
            ["test", "--database-url", url, Provisioned.repositoryRoot + "/sql/tests"],
            ["test", "--database-url", url, "--database-url", badURL, Provisioned.repositoryRoot + "/sql/tests"],
            ["audit", "--database-url", url, "--format", "json"],
            ["audit", "--database-url", url, "--format", "sarif", "--output", dir + "/a.sarif"],
            ["audit", "--database-url", badURL],
            ["snapshot", "--database-url", url, "--output", dir + "/p.lock"],
            ["init", "--database-url", url, "--output", dir + "/a.rls"],
            ["init", "--database-url", badURL, "--output", "-"],
            ["diff", dir + "/p.lock", "--database-url", url],
            ["check", "--database-url", url, "--junit", dir + "/c.xml", "--json", dir + "/c.json"],
        ]
        for args in runs {
            let r = try CLI.run(args, environment: env)
            XCTAssertFalse(r.output.contains(password), "password printed by \(args[0]): \(r.output)")
            XCTAssertFalse(r.output.contains(key), "key printed by \(args[0])")
        }
        for file in ["out.xml", "a.sarif", "p.lock", "c.xml", "c.json"] {
            let report = (try? String(contentsOfFile: dir + "/" + file, encoding: .utf8)) ?? ""
            XCTAssertFalse(report.isEmpty, file)
            XCTAssertFalse(report.contains(password) || report.contains(key), file)
        }
        // The throwaway server's log (tests run against it unless RLSKIT_TEST_DATABASE_URL is set).
        if let log = try? String(contentsOfFile: host + "/server.log", encoding: .utf8) {
            XCTAssertFalse(log.contains(password), "password in the server log")
            XCTAssertFalse(log.contains(key), "key in the server log")
        }
    }
}
