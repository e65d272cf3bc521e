import Foundation
import Postgres
import TestSupport
import XCTest

/// A corpus of malformed inputs: each gives one clear first line, a documented exit code, no
/// crash or stack trace, and changes nothing in the database.
final class BadInputTests: XCTestCase {
    struct Case {
        var name: String
        /// `{dir}` is the case's folder, `{db}` the database URL.
        var args: [String]
        var files: [String: Data] = [:]
        var code: Int32
        /// The first line of stderr must start with "rlskit: " + this (after substitution).
        var first: String
        var environment: [String: String] = [:]
    }

    static func text(_ s: String) -> Data { Data(s.utf8) }

    static let cases: [Case] = [
        Case(name: "unknown flag", args: ["apply", "--bogus"], code: 2, first: "unknown option '--bogus'"),
        Case(name: "unknown command", args: ["deploy"], code: 2, first: "unknown command 'deploy'"),
        Case(
            name: "flag without value", args: ["apply", "--dir"], code: 2, first: "option '--dir' needs a value (DIR)"),
        Case(
            name: "flag twice", args: ["apply", "--dir", "a", "--dir", "b"], code: 2,
            first: "option '--dir' given twice"),
        Case(name: "stray argument", args: ["apply", "oops"], code: 2, first: "unexpected argument 'oops'"),
        Case(
            name: "malformed URL", args: ["apply", "--database-url", "postgresql://u:pw@[::1/x"], code: 2,
            first: "--database-url is not a valid connection string"),
        Case(name: "empty URL", args: ["apply", "--database-url", ""], code: 2, first: "--database-url is empty"),
        Case(
            name: "unknown URL option", args: ["apply", "--database-url", "postgresql:///x?frobnicate=1"], code: 2,
            first: "--database-url is not a valid connection string"),
        Case(
            name: "server not running", args: ["apply", "--database-url", "host=/nonexistent/socket/dir dbname=x"],
            code: 3, first: "cannot connect to x on a local socket"),
        Case(
            name: "connection refused", args: ["apply", "--database-url", "postgresql://u:secretpw@127.0.0.1:1/x"],
            code: 3, first: "cannot connect to x on 127.0.0.1:1"),
        Case(
            name: "missing database", args: ["apply", "--database-url", "{server} dbname=no_such_database_here"],
            code: 3, first: "cannot connect to"),
        Case(
            name: "unknown role", args: ["apply", "--database-url", "{server} dbname=postgres user=nobody_role"],
            code: 3, first: "cannot connect to"),
        Case(
            name: "missing directory", args: ["apply", "--database-url", "{db}", "--dir", "{dir}/nope"], code: 2,
            first: "{dir}/nope: no such directory"),
        Case(
            name: "dir is a file", args: ["apply", "--database-url", "{db}", "--dir", "{dir}/f.sql"],
            files: ["f.sql": text("select 1;")], code: 2, first: "{dir}/f.sql: not a directory"),
        Case(
            name: "syntax error first line",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("selec 1;")], code: 3,
            first: "{dir}/001_a.sql:1:1: syntax error at or near \"selec\""),
        Case(
            name: "syntax error mid file",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("create table t (x int);\n\ninsert into t values (1,);\n")], code: 3,
            first: "{dir}/001_a.sql:3:25: syntax error at or near \")\""),
        Case(
            name: "unterminated string", args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("create table t (x int);\nselect 'abc")], code: 3,
            first: "{dir}/001_a.sql:2:8: unterminated quoted string"),
        Case(
            name: "unterminated dollar quote",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("do $$ begin")], code: 3,
            first: "{dir}/001_a.sql:1:4: unterminated dollar-quoted string"),
        Case(
            name: "missing table", args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("alter table nowhere add column y int;")], code: 3,
            first: "{dir}/001_a.sql:1:1: relation \"nowhere\" does not exist"),
        Case(
            name: "runtime error", args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("create table t (x int);\nselect 1/0;")], code: 3,
            first: "{dir}/001_a.sql:2:1: division by zero"),
        Case(
            name: "non-UTF-8 file", args: ["apply", "--database-url", "{db}", "--dir", "{dir}"],
            files: ["001_a.sql": Data([0x73, 0x65, 0x6c, 0x0a, 0xff, 0xfe, 0x3b])], code: 2,
            first: "{dir}/001_a.sql:2: not valid UTF-8"),
        Case(
            name: "NUL byte", args: ["apply", "--database-url", "{db}", "--dir", "{dir}"],
            files: ["001_a.sql": Data([0x73, 0x00, 0x3b])], code: 2, first: "{dir}/001_a.sql: contains a NUL byte"),
        Case(
            name: "psql meta-command", args: ["apply", "--database-url", "{db}", "--dir", "{dir}"],
            files: ["001_a.sql": text("select 1;\n\\i other.sql\n")], code: 2,
            first: "{dir}/001_a.sql:2: psql meta-command"),
        Case(
            name: "commit mid file", args: ["apply", "--database-url", "{db}", "--dir", "{dir}"],
            files: ["001_a.sql": text("select 1;\ncommit;\nselect 2;")], code: 2,
            first: "{dir}/001_a.sql:2: 'commit' controls the transaction"),
        Case(
            name: "commit behind a non-ASCII name and a dollar sign",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: [
                "001_a.sql": text("create table t (x int);\nselect 1 as €$a$;\ncommit; begin;\nselect 1/0; -- $a$\n")
            ], code: 2, first: "{dir}/001_a.sql:3: 'commit' controls the transaction"),
        Case(
            name: "commit behind a non-ASCII name and E",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: [
                "001_a.sql": text("create table t (x int);\nselect 1 as €E'\\';\ncommit; begin;\nselect 1/0; -- '\n")
            ], code: 2, first: "{dir}/001_a.sql:3: 'commit' controls the transaction"),
        Case(
            name: "commit with a comment attached",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("select 1;\ncommit--x\n;\nselect 2;")], code: 2,
            first: "{dir}/001_a.sql:2: 'commit--x' controls the transaction"),
        Case(
            name: "migration switching role",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("create role rlskit_bad_role;\nset role rlskit_bad_role;\n")], code: 2,
            first: "{dir}/001_a.sql:2: the migration leaves the role switched to rlskit_bad_role"),
        Case(
            name: "migration dropping the ledger",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("create table t (x int);\ndrop schema rlskit cascade;\n")], code: 2,
            first: "{dir}/001_a.sql:2: the migration drops schema rlskit"),
        Case(
            name: "bad duration", args: ["apply", "--lock-timeout", "soon"], code: 2,
            first: "--lock-timeout 'soon' is not a duration"),
        Case(
            name: "negative duration", args: ["apply", "--lock-timeout", "-3s"], code: 2,
            first: "--lock-timeout '-3s' is out of range"),
        Case(
            name: "huge duration", args: ["apply", "--ddl-lock-timeout", "1e300"], code: 2,
            first: "--ddl-lock-timeout '1e300' is out of range"),
        Case(
            name: "duplicate versions", args: ["apply", "--database-url", "{db}", "--dir", "{dir}"],
            files: ["0001_a.sql": text("select 1;"), "0001_b.sql": text("select 2;")], code: 2,
            first: "{dir}/0001_b.sql: version 0001 is also used by {dir}/0001_a.sql"),
        Case(
            name: "COPY from stdin in a migration",
            args: ["apply", "--database-url", "{db}", "--dir", "{dir}", "--no-stand-in"],
            files: ["001_a.sql": text("create table c (x int);\ncopy c from stdin;\n")], code: 3,
            first: "{dir}/001_a.sql:2:1: COPY FROM STDIN / TO STDOUT is not supported"),
        Case(
            name: "password with an unencoded @",
            args: ["audit", "--database-url", "postgresql://postgres:secret@pw@127.0.0.1:1/postgres"], code: 2,
            first: "--database-url is not a valid connection string (the user or password holds an unencoded '@' or '/'"
        ),
        Case(
            name: "password with an unencoded /",
            args: ["apply", "--database-url", "postgresql://postgres:secret/pw@127.0.0.1:1/postgres"], code: 2,
            first: "--database-url is not a valid connection string (the user or password holds an unencoded '@' or '/'"
        ),
        Case(
            name: "DATABASE_URL password with an unencoded @", args: ["test"], code: 2,
            first: "DATABASE_URL is not a valid connection string (the user or password holds",
            environment: ["DATABASE_URL": "postgresql://u:secret@pw@127.0.0.1:1/x"]),
        Case(
            name: "server programs folder that holds none", args: ["apply"], code: 2,
            first: "cannot start a throwaway PostgreSQL: RLSKIT_PG_BINDIR=/nonexistent holds no initdb and postgres",
            environment: ["RLSKIT_PG_BINDIR": "/nonexistent"]),
        Case(
            name: "malformed DATABASE_URL", args: ["apply"], code: 2,
            first: "DATABASE_URL is not a valid connection string",
            environment: ["DATABASE_URL": "postgresql://u:secretpw@[::1/x"]),
        Case(
            name: "storage url without key", args: ["apply", "--storage-url", "https://x.supabase.co"], code: 2,
            first: "--storage-url and --service-key-env go together"),
        Case(
            name: "storage url not http",
            args: ["apply", "--storage-url", "javascript:alert(1)", "--service-key-env", "K"], code: 2,
            first: "--storage-url must be an http(s) URL", environment: ["K": "x"]),
        Case(
            name: "storage url with credentials",
            args: ["apply", "--storage-url", "https://a:b@x.co", "--service-key-env", "K"], code: 2,
            first: "--storage-url must not carry credentials", environment: ["K": "x"]),
        Case(
            name: "service key variable unset",
            args: ["apply", "--storage-url", "https://x.co", "--service-key-env", "RLSKIT_NOT_SET_ANYWHERE"], code: 2,
            first: "environment variable RLSKIT_NOT_SET_ANYWHERE (from --service-key-env) is not set or empty"),
        Case(
            name: "sql file that is a folder", args: ["apply", "--database-url", "{db}", "--dir", "{dir}"],
            files: ["001_a.sql/x": text("")], code: 2, first: "{dir}/001_a.sql: cannot read the file"),
        Case(
            name: "access file typo", args: ["test", "--database-url", "{db}", "{dir}/a.rls"],
            files: ["a.rls": text("table public.profiles\n  owner id\n  readd anyone\n")], code: 2,
            first: "{dir}/a.rls:3: unknown table setting 'readd'"),
        Case(
            name: "seed hiding a COMMIT behind a non-ASCII name and E",
            args: ["test", "--database-url", "{db}", "{dir}/s.rls"],
            files: [
                "s.rls": text(
                    "table public.profiles\n  owner id\n  read anyone\n  write owner\n  seed username = €E'\\'; commit; --'\n"
                )
            ], code: 2, first: "{dir}/s.rls:5: seed username: the SQL expression contains ';'"),
        Case(
            name: "tests on a database without auth", args: ["test", "--database-url", "{db}", "{dir}/m.rls"],
            files: ["m.rls": text("table public.nope\n  owner id\n  read anyone\n  write owner\n")], code: 2,
            first: "auth.users does not exist"),
        Case(
            name: "access file identifier with quotes and semicolons",
            args: ["test", "--database-url", "{db}", "{dir}/q.rls"],
            files: ["q.rls": text("table public.\"x; drop table y; --\n  owner id\n  read anyone\n  write owner\n")],
            code: 2, first: "{dir}/q.rls:1:"),
        Case(
            name: "unknown actor", args: ["test", "--database-url", "{db}", "{dir}/u.scenario"],
            files: ["u.scenario": text("scenario s\n  as mallory: select 1\n    expect ok\n")], code: 2,
            first: "{dir}/u.scenario:2: unknown actor 'mallory'"),
        Case(
            name: "unknown expectation", args: ["test", "--database-url", "{db}", "{dir}/e.scenario"],
            files: ["e.scenario": text("scenario s\n  user a\n  as a: select 1\n    expect maybe\n")], code: 2,
            first: "{dir}/e.scenario:4: unknown expectation 'maybe'"),
        Case(
            name: "NUL byte in a scenario step", args: ["test", "--database-url", "{db}", "{dir}/n.scenario"],
            files: ["n.scenario": text("scenario s\n  user a\n  as a: select 1,\n    '\u{0}'\n    expect ok\n")],
            code: 2, first: "{dir}/n.scenario:4: contains a NUL byte"),
        Case(
            name: "NUL byte in an access file's table name", args: ["test", "--database-url", "{db}", "{dir}/z.rls"],
            files: ["z.rls": text("table public.\"no\u{0}tes\"\n  owner user_id\n  read anyone\n  write owner\n")],
            code: 2, first: "{dir}/z.rls:1: contains a NUL byte (column 17)"),
        Case(
            name: "NUL byte in an access file's header", args: ["test", "--database-url", "{db}", "{dir}/h.rls"],
            files: [
                "h.rls": text(
                    "header x-tenant = {uid}\u{0}\ntable public.notes\n  owner user_id\n  read anyone\n  write owner\n")
            ],
            code: 2, first: "{dir}/h.rls:1: contains a NUL byte"),
        Case(
            name: "NUL byte in a scenario's user line", args: ["test", "--database-url", "{db}", "{dir}/u0.scenario"],
            files: ["u0.scenario": text("scenario s\n  user a\u{0}\n  as a: select 1\n    expect ok\n")],
            code: 2, first: "{dir}/u0.scenario:2: contains a NUL byte"),
        Case(
            name: "scenario step hiding a second statement behind a dollar sign",
            args: ["test", "--database-url", "{db}", "{dir}/h.scenario"],
            files: [
                "h.scenario": text(
                    "scenario s\n  user a\n  as a: select 1 as €$a$; commit; select $a$\n    expect ok\n")
            ], code: 2, first: "{dir}/h.scenario:3: one statement per step"),
        Case(
            name: "empty scenario file", args: ["test", "--database-url", "{db}", "{dir}/empty.scenario"],
            files: ["empty.scenario": Data()], code: 2, first: "{dir}/empty.scenario:1: no scenarios in this file"),
        Case(
            name: "non-UTF-8 access file", args: ["test", "--database-url", "{db}", "{dir}/b.rls"],
            files: ["b.rls": Data([0x74, 0xff, 0x0a])], code: 2, first: "{dir}/b.rls:1: not UTF-8"),
        Case(
            name: "test path missing", args: ["test", "--database-url", "{db}", "{dir}/nothere"], code: 2,
            first: "{dir}/nothere: no such file or folder"),
        Case(
            name: "audit bad threshold", args: ["audit", "--database-url", "{db}", "--fail-on", "sometimes"], code: 2,
            first: "unknown --fail-on 'sometimes'"),
        Case(
            name: "audit malformed baseline",
            args: ["audit", "--database-url", "{db}", "--baseline", "{dir}/base.txt"],
            files: ["base.txt": text("zzzz # \n")], code: 2,
            first: "{dir}/base.txt:1: expected '<16 hex digit fingerprint> # reason'"),
        Case(name: "audit unknown lint", args: ["audit", "--explain", "nope"], code: 2, first: "unknown lint 'nope'"),
        Case(name: "audit without a database", args: ["audit"], code: 2, first: "audit needs a database"),
        Case(
            name: "audit empty schema list", args: ["audit", "--database-url", "{db}", "--exposed-schemas", ","],
            code: 2, first: "--exposed-schemas is empty"),
        Case(
            name: "snapshot of schemas that do not exist",
            args: ["snapshot", "--database-url", "{db}", "--exposed-schemas", "nosuch"], code: 2,
            first: "exposed schema nosuch does not exist in this database"),
        Case(
            name: "snapshot unwritable output",
            args: ["snapshot", "--database-url", "{db}", "--output", "/nonexistent/p.lock"], code: 2,
            first: "cannot write /nonexistent/p.lock"),
        Case(
            name: "diff malformed lock file", args: ["diff", "{dir}/bad.lock", "--database-url", "{db}"],
            files: ["bad.lock": text("garbage\n")], code: 2, first: "{dir}/bad.lock:1: not an rlskit lock file"),
        Case(
            name: "check unknown format", args: ["check", "--format", "xml"], code: 2,
            first: "--format must be text, junit, json or sarif"),
        Case(
            name: "check unwritable junit", args: ["check", "--junit", "/nonexistent/j.xml"], code: 2,
            first: "cannot write /nonexistent/j.xml"),
        Case(
            name: "report over its own access file",
            args: ["test", "--database-url", "{db}", "--output", "{dir}/a.rls", "{dir}/a.rls"],
            files: ["a.rls": text("table public.profiles\n  owner id\n  read anyone\n  write owner\n")], code: 2,
            first: "--output {dir}/a.rls is one of the inputs"),
        Case(
            name: "report over a file in an input folder",
            args: ["test", "--database-url", "{db}", "--output", "{dir}/t/s.scenario", "{dir}/t"],
            files: ["t/s.scenario": text("scenario s\n  as anon: select 1\n    expect ok\n")], code: 2,
            first: "--output {dir}/t/s.scenario is one of the inputs"),
        Case(
            name: "junit over a migration",
            args: ["check", "--database-url", "{db}", "--dir", "{dir}/m", "--junit", "{dir}/m/0001_a.sql"],
            files: ["m/0001_a.sql": text("select 1;\n")], code: 2,
            first: "--junit {dir}/m/0001_a.sql is one of the inputs"),
        Case(
            name: "pgtap report over its test file",
            args: ["pgtap", "--database-url", "{db}", "--output", "{dir}/t.sql", "{dir}"],
            files: ["t.sql": text("select plan(1);\nselect ok(true);\n")], code: 2,
            first: "--output {dir}/t.sql is one of the inputs"),
        Case(
            name: "pgtap report over a file it includes",
            args: ["pgtap", "--database-url", "{db}", "--output", "{dir}/inc/helpers.psql", "{dir}/t.sql"],
            files: [
                "t.sql": text("\\ir inc/helpers.psql\nselect plan(1);\nselect ok(true);\n"),
                "inc/helpers.psql": text("select 1;\n"),
            ], code: 2, first: "--output {dir}/inc/helpers.psql is one of the inputs"),
        Case(
            name: "test report over a file a pgTAP suite includes",
            args: ["test", "--database-url", "{db}", "--output", "{dir}/inc/helpers.psql", "{dir}/t.sql"],
            files: [
                "t.sql": text("\\ir inc/helpers.psql\nselect plan(1);\nselect ok(true);\n"),
                "inc/helpers.psql": text("select 1;\n"),
            ], code: 2, first: "--output {dir}/inc/helpers.psql is one of the inputs"),
        Case(
            name: "audit report over its baseline",
            args: ["audit", "--database-url", "{db}", "--baseline", "{dir}/b.txt", "--output", "{dir}/b.txt"],
            files: ["b.txt": text("# none\n")], code: 2, first: "--output {dir}/b.txt is one of the inputs"),
        Case(
            name: "test report over the URL list",
            args: ["test", "--database-urls", "{dir}/u.txt", "--output", "{dir}/u.txt", "{dir}/a.rls"],
            files: [
                "u.txt": text("postgresql://u@127.0.0.1:1/x\n"),
                "a.rls": text("table public.profiles\n  owner id\n  read anyone\n  write owner\n"),
            ], code: 2, first: "--output {dir}/u.txt is one of the inputs"),
        Case(
            name: "two reports in one file", args: ["check", "--junit", "{dir}/r.xml", "--json", "{dir}/r.xml"],
            code: 2, first: "--json and --junit name the same file ({dir}/r.xml)"),
        Case(
            name: "report into a file that refuses writes",
            args: ["audit", "--database-url", "{db}", "--output", "/proc/version"], code: 2,
            first: "cannot write /proc/version: "),
        Case(
            name: "pgtap missing path", args: ["pgtap", "--database-url", "{db}", "{dir}/missing.sql"], code: 2,
            first: "{dir}/missing.sql"),
        Case(
            name: "pgtap bad jobs", args: ["pgtap", "--database-url", "{db}", "--jobs", "0", "{dir}"], code: 2,
            first: "--jobs needs a number from 1 to 64, not '0'"),
        Case(
            name: "pgtap bad format", args: ["pgtap", "--database-url", "{db}", "--format", "xml", "{dir}"], code: 2,
            first: "--format must be text, tap, junit or json (got 'xml')"),
        Case(
            name: "pgtap NUL byte", args: ["pgtap", "--database-url", "{db}", "{dir}"],
            files: ["t.sql": text("select plan(1);\nselect 'a\u{0}';\n")], code: 2,
            first: "{dir}/t.sql:2:10: contains a NUL byte"),
        Case(
            name: "pgtap file releasing rlskit's savepoint", args: ["pgtap", "--database-url", "{db}", "{dir}"],
            files: [
                "t.sql": text("select plan(1);\nrelease savepoint rlskit_pgtap_statement;\nselect ok(true);\n")
            ], code: 2, first: "{dir}/t.sql:3:1: a savepoint rlskit needs here no longer exists"),
        Case(
            name: "pgtap unwritable output",
            args: ["pgtap", "--database-url", "{db}", "--output", "/nonexistent-dir/out.xml", "{dir}"],
            files: ["t.sql": text("select 1;")], code: 2, first: "cannot write /nonexistent-dir/out.xml"),
        Case(
            name: "pgtap unknown meta-command", args: ["pgtap", "--database-url", "{db}", "{dir}"],
            files: ["t.sql": text("select plan(1);\n\\gexec\nselect ok(true);")], code: 2, first: "{dir}/t.sql:2"),
    ]

    /// Whatever libpq makes of a malformed URL or keyword string, no piece of the password
    /// reaches the output of any command that connects.
    func testPasswordPiecesNeverShow() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "select plan(1);\nselect ok(true);\n".write(toFile: dir + "/t.sql", atomically: true, encoding: .utf8)
        let pieces = ["S3cr", "t3PW", "xyzzy"]
        var urls: [String] = []
        for sep in ["@", "/", "?", "@@", "/@", "?@", ":", "#", " ", "'", "="] {
            urls += [
                "postgresql://postgres:S3cr\(sep)t3PWxyzzy@127.0.0.1:1/postgres",
                "host=127.0.0.1 port=1 password=S3cr\(sep)t3PWxyzzy dbname=x",
            ]
        }
        urls += [
            "postgresql://u:S3cr/t3PW?host=xyzzy@127.0.0.1:1/db", "host=127.0.0.1 port=1 password='S3cr t3PWxyzzy",
        ]
        let commands: [[String]] = [
            ["audit"], ["apply"], ["test", dir], ["check"], ["pgtap", dir + "/t.sql"], ["snapshot"],
            ["storage", "drain"], ["init", "--output", "-"],
        ]
        // Every command meets every kind of string, without running each pair (the leak would
        // be in the shared connection layer).
        for (i, url) in urls.enumerated() {
            for cmd in [commands[i % commands.count], commands[(i + 3) % commands.count]] {
                let r = try CLI.run(cmd + ["--database-url", url], environment: ["PGCONNECT_TIMEOUT": "2"])
                XCTAssertTrue(r.code == 2 || r.code == 3, "\(cmd) \(url): \(r.output)")
                XCTAssertFalse(pieces.contains { r.output.contains($0) }, "\(cmd) \(url): \(r.output)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(cmd) \(url): \(r.stderr)")
            }
            let viaEnv = try CLI.run(["audit"], environment: ["DATABASE_URL": url, "PGCONNECT_TIMEOUT": "2"])
            XCTAssertFalse(pieces.contains { viaEnv.output.contains($0) }, "DATABASE_URL \(url): \(viaEnv.output)")
        }
    }

    /// An output that is an input through a symlink or a hard link is refused too, and the
    /// input is left as it was.
    func testOutputsNeverOverwriteInputs() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let access = "table public.profiles\n  owner id\n  read anyone\n  write owner\n"
        try FileManager.default.createDirectory(atPath: dir + "/m", withIntermediateDirectories: true)
        try access.write(toFile: dir + "/a.rls", atomically: true, encoding: .utf8)
        try "select 1;\n".write(toFile: dir + "/m/0001_a.sql", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.txt", withDestinationPath: dir + "/a.rls")
        try FileManager.default.linkItem(atPath: dir + "/m/0001_a.sql", toPath: dir + "/hard.xml")
        for (args, said) in [
            (
                ["test", "--output", dir + "/link.txt", dir + "/a.rls"],
                "--output \(dir)/link.txt is the same file as the input \(dir)/a.rls"
            ),
            (
                ["check", "--dir", dir + "/m", "--sarif", dir + "/hard.xml"],
                "--sarif \(dir)/hard.xml is the same file as the input \(dir)/m/0001_a.sql"
            ),
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.code, 2, r.output)
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: " + said), r.stderr)
        }
        XCTAssertEqual(try String(contentsOfFile: dir + "/a.rls", encoding: .utf8), access)
        XCTAssertEqual(try String(contentsOfFile: dir + "/m/0001_a.sql", encoding: .utf8), "select 1;\n")
    }

    /// A TMPDIR that could rewrite postgresql.conf, the connection string or the watchdog's
    /// pipe is refused in one line, exit 2, before anything is created in it.
    func testHostileTemporaryDirectory() throws {
        let root = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "table public.profiles\n  owner id\n  read anyone\n  write owner\n".write(
            toFile: root + "/a.rls", atomically: true, encoding: .utf8)
        try "select plan(1);\nselect ok(true);\n".write(toFile: root + "/t.sql", atomically: true, encoding: .utf8)
        let names = [
            "q'uote", "new\nline", "x'\nlisten_addresses = '127.0.0.1", "sp ace", "back\\slash", "com,ma", "tab\tbed",
            "del\u{7F}", "dq\"uote", "nbsp\u{A0}x",
        ]
        for name in names {
            let dir = root + "/" + name
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for cmd in [["apply", "--builtin"], ["check", "--builtin"], ["test", "a.rls"], ["pgtap", "t.sql"]] {
                let r = try CLI.run(cmd, environment: ["TMPDIR": dir], directory: root)
                XCTAssertEqual(r.code, 2, "\(cmd) \(name.debugDescription): \(r.output)")
                XCTAssertTrue(
                    r.stderr.hasPrefix("rlskit: cannot start a throwaway PostgreSQL: TMPDIR holds a quote"),
                    "\(name.debugDescription): \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], name.debugDescription)
        }
        for (value, said) in [
            ("relative/tmp", "TMPDIR is a relative path"),
            ("/" + String(repeating: "x", count: 80), "TMPDIR is longer than 72 bytes"),
        ] {
            let r = try CLI.run(["apply", "--builtin"], environment: ["TMPDIR": value], directory: root)
            XCTAssertEqual(r.code, 2, r.output)
            XCTAssertTrue(r.stderr.hasPrefix("rlskit: cannot start a throwaway PostgreSQL: " + said), r.stderr)
        }
        // A plain path that needs no quoting still works (the values are written quoted).
        let plain = root + "/plain-dir.x"
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        chmod(plain, 0o777)
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        let ok = try CLI.run(["apply", "--dir", root + "/empty"], environment: ["TMPDIR": plain], directory: root)
        XCTAssertEqual(ok.code, 0, ok.output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: plain), [])
    }

    /// An unknown server user is the user's configuration (exit 2), not a server failure.
    func testUnknownServerUser() throws {
        try XCTSkipIf(geteuid() != 0, "the server user is only used when running as root")
        let r = try CLI.run(["apply"], environment: ["RLSKIT_SERVER_USER": "no_such_user_here"])
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertTrue(
            r.stderr.hasPrefix(
                "rlskit: cannot start a throwaway PostgreSQL: PostgreSQL refuses to run as root and there is no user 'no_such_user_here'"
            ), r.stderr)
    }

    /// Schema and data of a database, to prove a failed run changed nothing.
    func fingerprint(_ conn: PostgresConnection) throws -> String {
        let q = """
            select md5(coalesce(string_agg(x, '|' order by x), '')) from (
              select n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || c.reltuples::text
              from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
              union all select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema')
              union all select rolname from pg_roles
            ) s(x)
            """
        return try conn.query(q).rows[0].decode(0)
    }

    func testCorpus() throws {
        XCTAssertGreaterThanOrEqual(Self.cases.count, 30)
        let db = try TestServer.makeDatabase(prefix: "bad")
        defer { TestServer.drop(db.name) }
        let conn = try PostgresConnection(db.connectionString)
        var server = try TestServer.connectionString.options()
        server.removeValue(forKey: "dbname")
        let serverInfo = server.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        for c in Self.cases {
            let dir = try CLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            for (name, data) in c.files {
                let path = dir + "/" + name
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data))
            }
            func sub(_ s: String) -> String {
                s.replacingOccurrences(of: "{dir}", with: dir).replacingOccurrences(
                    of: "{db}", with: db.connectionString.raw
                )
                .replacingOccurrences(of: "{server}", with: serverInfo)
            }
            let before = try fingerprint(conn)
            let r = try CLI.run(c.args.map(sub), environment: c.environment)
            XCTAssertEqual(r.code, c.code, "\(c.name): \(r.output)")
            let firstLine = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(firstLine.hasPrefix("rlskit: " + sub(c.first)), "\(c.name): \(firstLine)")
            XCTAssertFalse(
                r.output.contains("Fatal error") || r.output.contains("Stack dump") || r.output.contains("secretpw"),
                "\(c.name)")
            if c.code != 0 { XCTAssertEqual(try fingerprint(conn), before, "\(c.name) changed the database") }
            // One line; usage mistakes may add the usage and where to read more.
            for extra in r.stderr.split(separator: "\n").dropFirst() {
                XCTAssertTrue(
                    extra.hasPrefix("usage: rlskit") || extra.hasPrefix("run 'rlskit"), "\(c.name): \(r.stderr)")
            }
        }
    }
}
