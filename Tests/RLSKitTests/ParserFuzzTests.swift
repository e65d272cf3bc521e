import Foundation
@testable import RLSKit
import TestSupport
import XCTest

/// Random and truncated input to every parser: errors are fine, crashes are not.
final class ParserFuzzTests: XCTestCase {
    var rng = SystemRandomNumberGenerator()

    func randomText(_ alphabet: [Character], maxLength: Int = 80) -> String {
        String((0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    /// Every prefix of the real inputs (cut at each UTF-8 scalar), and random mutations of them.
    func corpus() throws -> [(path: String, text: String)] {
        let root = Provisioned.repositoryRoot
        var files: [(String, String)] = []
        for dir in ["sql/tests", "sql/migrations", "Tests/Fixtures/pgtap"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + dir)) ?? [] {
                if let t = try? String(contentsOfFile: root + "/" + dir + "/" + name, encoding: .utf8) { files.append((dir + "/" + name, t)) }
            }
        }
        XCTAssertGreaterThan(files.count, 5)
        return files
    }

    func variants(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var out: [String] = []
        let step = max(1, scalars.count / 60)
        for cut in stride(from: 0, to: scalars.count, by: step) { out.append(String(String.UnicodeScalarView(scalars[..<cut]))) }
        for _ in 0..<20 where !scalars.isEmpty {
            var s = scalars
            for _ in 0..<3 {
                let i = Int.random(in: 0..<s.count, using: &rng)
                s[i] = ["\n", "'", "$", "\"", ";", "{", "\\", "#", ":", " ", "é", "\u{0}", "€", "\u{00A0}", "-", "*", "/", "E", "&", "\r"].randomElement(using: &rng)!
            }
            out.append(String(String.UnicodeScalarView(s)))
        }
        return out
    }

    func testHarnessFilesScannerAndTAPNeverCrash() throws {
        for (path, text) in try corpus() {
            for v in variants(text) {
                _ = SQLScanner.statements(in: v)
                _ = try? AccessFile.parse(v, path: path)
                _ = try? ScenarioFile.parse(v, path: path)
                _ = TAPParser.parse(v.split(separator: "\n", omittingEmptySubsequences: false).map { TAPLine(String($0)) })
                _ = PsqlVariables.substitute(v, ["x": "1", "name": "o'brien"])
            }
        }
        let tapAlphabet = Array("ok not 0123456789 -#\n.SKIPTODO Bail out!")
        for _ in 0..<3000 {
            _ = TAPParser.parse(randomText(tapAlphabet, maxLength: 200).split(separator: "\n").map { TAPLine(String($0)) })
        }
    }

    func testPsqlScriptsFromRandomFilesNeverCrash() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let alphabet = Array("\\ set i ir echo x :'\"; select 1 $$ \n -- /* */ plan ok")
        for n in 0..<300 {
            let path = dir + "/f\(n).sql"
            try randomText(alphabet, maxLength: 120).write(toFile: path, atomically: true, encoding: .utf8)
            _ = PsqlScript.load(path: path)
        }
        // A file that includes itself must stop, not recurse forever.
        try "\\i self.sql\nselect 1;".write(toFile: dir + "/self.sql", atomically: true, encoding: .utf8)
        _ = PsqlScript.load(path: dir + "/self.sql")
    }
}
