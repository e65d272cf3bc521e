import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

final class PsqlScriptTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try CLI.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func write(_ name: String, _ text: String) throws -> String {
        let path = dir + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func sql(_ s: PsqlScript) -> [String] {
        s.steps.compactMap { if case .sql(let t) = $0.kind { t } else { nil } }
    }

    func testVariablesAreSubstitutedOutsideQuotes() throws {
        let path = try write(
            "v.sql",
            """
            \\set n 42
            \\set who 'O''Brien'
            \\set t my table
            select :n, :'who', :"t", ':n', $$:n$$, 1::int, :missing -- :n
            ;
            \\unset n
            select :n;
            """)
        let s = PsqlScript.load(path: path)
        XCTAssertEqual(s.problems, [])
        XCTAssertEqual(
            sql(s), ["select 42, 'O''Brien', \"mytable\", ':n', $$:n$$, 1::int, :missing -- :n", "select :n"])
    }

    func testEchoQuitAndIgnoredCommands() throws {
        let path = try write(
            "e.sql", "\\pset format unaligned\n\\timing on\n\\echo hello 'big world'\nselect 1;\n\\q\nselect 2;\n")
        let s = PsqlScript.load(path: path)
        XCTAssertEqual(s.problems, [])
        XCTAssertEqual(s.steps.map(\.kind), [.echo("hello big world"), .sql("select 1"), .quit])
    }

    func testIncludesKeepTheirOwnLocations() throws {
        _ = try write("lib/setup.psql", "-- setup\n\nselect 'from include';\n")
        let path = try write("main.sql", "select 1;\n\\ir lib/setup.psql\n\\i lib/setup.psql\nselect 2;\n")
        let s = PsqlScript.load(path: path, display: "tests/main.sql")
        XCTAssertEqual(s.problems, [])
        XCTAssertEqual(sql(s), ["select 1", "select 'from include'", "select 'from include'", "select 2"])
        XCTAssertEqual(s.steps[1].location.description, "tests/lib/setup.psql:3:1")
        XCTAssertEqual(s.steps[3].location.description, "tests/main.sql:4:1")
    }

    func testRejectedCommandsNameFileAndLine() throws {
        let path = try write(
            "r.sql", "select 1;\n\\c otherdb\n\\! rm -rf /\n\\gexec\n\\frob\n\\i nowhere.sql\n\\set x `date`\n")
        let s = PsqlScript.load(path: path, display: "r.sql")
        // A missing include is psql's failure at run time, of this file only: a step, not a problem.
        XCTAssertEqual(s.problems.map(\.location.line), [2, 3, 4, 5, 7])
        XCTAssertTrue(
            s.steps.contains {
                if case .error(let m) = $0.kind { return m.contains("no such file") && $0.location.line == 6 }
                return false
            })
        XCTAssertTrue(
            s.problems[0].description.hasPrefix("r.sql:2:1: \\c is not supported by rlskit pgtap"),
            s.problems[0].description)
        XCTAssertTrue(s.problems[3].message.hasPrefix("\\frob is not supported by rlskit pgtap"))
        XCTAssertTrue(s.problems[3].message.contains("not a psql command"))
    }

    /// psql ends the query buffer at a backslash: `\gset` or `\gexec` after a statement, on its
    /// line or the next, is a meta-command the file cannot run, never SQL sent to the server.
    func testGsetAndGexecEndingAStatementStopTheFile() throws {
        let cases: [(String, String)] = [
            ("select 1 as one\n\\gset\nselect :one;\n", "g.sql:2:1: \\gset is not supported by rlskit pgtap"),
            ("select 1;\nselect 'select 1' \\gexec\n", "g.sql:2:19: \\gexec is not supported by rlskit pgtap"),
            ("select 1 \\g\n", "g.sql:1:10: \\g is not supported by rlskit pgtap"),
            ("select 1; select (2) \\frob\n", "g.sql:1:22: \\frob is not supported by rlskit pgtap"),
        ]
        for (text, prefix) in cases {
            let s = PsqlScript.load(path: try write("g.sql", text), display: "g.sql")
            XCTAssertEqual(s.problems.count, 1, text)
            XCTAssertTrue(s.problems.first?.description.hasPrefix(prefix) ?? false, "\(text): \(s.problems)")
            XCTAssertFalse(s.problems.first?.description.contains("\n") ?? true)
            XCTAssertFalse(sql(s).contains { $0.contains("\\") }, "\(sql(s))")
        }
        // Backslashes inside strings, quoted names, dollar quotes and comments are SQL.
        let quoted = "select E'a\\\\b', '\\gset', \"x\\y\", $$ \\gexec $$ -- \\gset\n;\n"
        let s = PsqlScript.load(path: try write("q.sql", quoted), display: "q.sql")
        XCTAssertEqual(s.problems, [])
        XCTAssertEqual(sql(s).count, 1)
    }

    func testCopyThroughTheClientIsRejected() throws {
        let path = try write("c.sql", "copy t from stdin;\ncopy t to '/tmp/x';\nCOPY (select 1) TO STDOUT;\n")
        XCTAssertEqual(PsqlScript.load(path: path, display: "c.sql").problems.map(\.location.line), [1, 3])
    }

    func testIncludeCyclesStop() throws {
        let path = try write("a.sql", "\\ir a.sql\n")
        let s = PsqlScript.load(path: path)
        XCTAssertEqual(s.problems.count, 1)
        XCTAssertTrue(s.problems[0].message.contains("nested"))
    }

    func testUnreadableFiles() throws {
        let bad = dir + "/bin.sql"
        XCTAssertTrue(FileManager.default.createFile(atPath: bad, contents: Data([0xff, 0xfe, 0x00, 0x41])))
        XCTAssertEqual(
            PsqlScript.load(path: bad, display: "bin.sql").problems.map(\.description), ["bin.sql:1: not UTF-8 text"])
        XCTAssertEqual(
            PsqlScript.load(path: dir + "/none.sql", display: "none.sql").problems.map(\.description),
            ["none.sql:1: no such file"])
    }

    func testHelpersAreInstalledOnlyWhenUsed() throws {
        XCTAssertFalse(PsqlScript.load(path: try write("p.sql", "select plan(1);")).usesHelpers)
        XCTAssertTrue(PsqlScript.load(path: try write("h.sql", "select tests.authenticate_as('a');")).usesHelpers)
    }

    func testStatementKinds() {
        let cases: [(String, StatementKind)] = [
            ("BEGIN", .begin), ("begin isolation level serializable", .begin), ("start transaction", .begin),
            ("commit", .commit), ("END", .commit), ("commit and chain", .commit),
            ("rollback", .rollback), ("ABORT", .rollback), ("rollback work", .rollback),
            ("rollback to savepoint a", .other), ("rollback to a", .other), ("ROLLBACK TRANSACTION TO a", .other),
            ("prepare transaction 'x'", .twoPhase), ("commit prepared 'x'", .twoPhase),
            ("rollback prepared 'x'", .twoPhase),
            ("prepare q as select 1", .other),
            ("create extension pgtap", .createPgTAP),
            ("CREATE EXTENSION IF NOT EXISTS \"pgtap\" with schema extensions", .createPgTAP),
            ("create extension \"basejump-supabase_test_helpers\" version '0.0.6'", .installHelpers),
            ("select dbdev.install('basejump-supabase_test_helpers')", .installHelpers),
            ("create extension pgcrypto", .other), ("select 'begin'", .other), ("starting", .other),
        ]
        for (sql, kind) in cases { XCTAssertEqual(StatementKind.of(sql), kind, sql) }
    }

    func testDiscoveryOrderAndErrors() throws {
        _ = try write("suite/b.sql", "")
        _ = try write("suite/a.pg", "")
        _ = try write("suite/sub/c.sql", "")
        _ = try write("suite/notes.txt", "")
        _ = try write("suite/.hidden/d.sql", "")
        let found = try PgTAPRunner.discover([dir + "/suite", dir + "/suite/b.sql"]).map {
            ($0.display as NSString).lastPathComponent
        }
        XCTAssertEqual(found, ["a.pg", "b.sql", "c.sql"])
        XCTAssertThrowsError(try PgTAPRunner.discover([dir + "/missing"])) {
            XCTAssertTrue("\($0)".hasSuffix("missing: no such file or directory"))
        }
        _ = try write("empty/readme.md", "")
        XCTAssertThrowsError(try PgTAPRunner.discover([dir + "/empty"])) {
            XCTAssertTrue("\($0)".contains("no pgTAP files"))
        }
    }
}
