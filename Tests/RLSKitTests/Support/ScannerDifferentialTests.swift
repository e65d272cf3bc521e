import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Our lexer and statement splitter against PostgreSQL's own (libpg_query, through pglast),
/// on thousands of generated and mutated inputs from a fixed seed.
final class ScannerDifferentialTests: XCTestCase {
    /// Fixed, so a failure reproduces; RLSKIT_SCANNER_SEED (hex) explores other inputs.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["RLSKIT_SCANNER_SEED"].flatMap { UInt64($0, radix: 16) } ?? 0x5EED_2026

    func testTokensAndStatementsMatchPostgreSQL() throws {
        let started = Date()
        var rng = SplitMix(seed: Self.seed)
        var inputs: [String] = []
        for _ in 0..<3000 { inputs.append(SQLGrammar.random(&rng)) }
        for _ in 0..<2000 { inputs.append(SQLGrammar.mutated(&rng)) }
        for _ in 0..<2000 { inputs.append(SQLGrammar.validScript(&rng)) }
        var tokenCases = 0
        var splitCases = 0
        var mismatches: [String] = []
        let oracle: [PgLastOracle.Answer]
        do { oracle = try PgLastOracle.run(inputs) } catch {
            // Without pglast the comparison is lost: fail, and still run the server's check below.
            XCTFail("scanner differential: no comparison with pglast: \(error)")
            oracle = []
        }
        let server = try Self.serverMismatches(inputs.suffix(2000))
        mismatches += server.mismatches
        for (sql, expected) in zip(inputs, oracle) {
            let s = Array(sql.unicodeScalars)
            // Tokens cover the text with no gap or overlap, whatever PostgreSQL made of it.
            let all = SQLLexer.tokens(s)
            if zip(all, all.dropFirst()).contains(where: { $0.end != $1.start })
                || all.first.map({ $0.start != 0 }) == true || (all.last?.end ?? 0) != s.count
            {
                mismatches.append(
                    "tokens of \(sql.debugDescription) do not cover it: \(all.map { [$0.start, $0.end] })")
            }
            if let want = expected.tokens {
                tokenCases += 1
                let got = SQLLexer.tokens(s).filter { $0.kind != .space }.map { [$0.start, $0.end] }
                if got != want {
                    mismatches.append("tokens of \(sql.debugDescription): ours \(got), PostgreSQL's \(want)")
                }
            }
            let statements = SQLScanner.statements(in: sql)
            if let want = expected.statements, !statements.contains(where: { $0.kind == .meta }) {
                splitCases += 1
                let got = statements.map { [$0.offset, $0.offset + $0.text.unicodeScalars.count] }
                if got != want {
                    mismatches.append("statements of \(sql.debugDescription): ours \(got), PostgreSQL's \(want)")
                }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "scanner differential: seed \(String(Self.seed, radix: 16)), \(inputs.count) inputs, \(tokenCases) token cases, \(splitCases) statement cases, \(server.statements) statements through the server, \(mismatches.count) mismatches, \(String(format: "%.1f", seconds)) s"
        )
        XCTAssertGreaterThan(tokenCases, 4000)
        XCTAssertGreaterThan(splitCases, 1500)
        XCTAssertGreaterThan(server.statements, 4000)
        XCTAssertTrue(mismatches.isEmpty, mismatches.prefix(8).joined(separator: "\n"))
    }
}

extension ScannerDifferentialTests {
    /// The server in use as the judge: each statement we split off, sent alone over the
    /// extended protocol, must be at most one statement to it (else it refuses "multiple
    /// commands"), so no statement ever hides behind another. Runs in a scratch database.
    static func serverMismatches(_ scripts: ArraySlice<String>) throws -> (statements: Int, mismatches: [String]) {
        let db = try TestServer.makeDatabase(prefix: "lex")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        var count = 0
        var mismatches: [String] = []
        for sql in scripts {
            for st in SQLScanner.statements(in: sql) where st.kind == .sql {
                count += 1
                do { try conn.query(st.text) } catch let e as PostgresError
                    where e.message.contains("cannot insert multiple commands")
                {
                    mismatches.append(
                        "the server found more than one statement in \(st.text.debugDescription) (from \(sql.debugDescription))"
                    )
                } catch {}
            }
            if conn.inTransaction { try conn.query("rollback") }
        }
        return (count, mismatches)
    }
}

/// A small, fixed-seed generator (SplitMix64), so a failure can be reproduced.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs Tests/Scripts/pglast_oracle.py, installing pglast into .build/test-python when it is missing.
enum PgLastOracle {
    struct Answer: Decodable {
        var t: [[Int]]?
        var p: [[Int]]?
        var tokens: [[Int]]? { t }
        var statements: [[Int]]? { p }
    }

    static func run(_ inputs: [String]) throws -> [Answer] {
        try Python.ensure(module: "pglast", package: "pglast")
        let out = try Python.run(["Tests/Scripts/pglast_oracle.py"], input: try JSONEncoder().encode(inputs))
        let answers = try JSONDecoder().decode([Answer].self, from: out)
        guard answers.count == inputs.count else {
            throw Tools.Missing(description: "pglast answered \(answers.count) of \(inputs.count) inputs")
        }
        return answers
    }
}
