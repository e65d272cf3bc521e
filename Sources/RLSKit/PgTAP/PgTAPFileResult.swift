import Foundation
import Postgres

/// An SQL error that stopped a file, placed at file:line:column.
struct PgTAPSQLError: Sendable, Equatable {
    var message: String
    var location: SourceLocation
    var sql: String?
    var sqlState: String?

    init(message: String, location: SourceLocation, sql: String?) {
        self.message = message
        self.location = location
        self.sql = sql
    }

    /// The statement's start plus the server's error position within it.
    init(_ e: PostgresError, sql: String, at start: SourceLocation) {
        var loc = start
        if let pos = e.position {
            let (l, c) = SQLScanner.lineAndColumn(ofPosition: pos, in: sql)
            loc.line = start.line + l - 1
            loc.column = l == 1 ? (start.column ?? 1) + c - 1 : c
        }
        var text = e.description
        if let ctx = e.context, !ctx.isEmpty {
            text += "\ncontext: " + ctx.split(separator: "\n").joined(separator: "; ")
        }
        self.init(message: text, location: loc, sql: sql)
        sqlState = e.sqlState
    }
}

/// What running one file produced.
public struct PgTAPFileResult: Sendable, Equatable {
    public var file: String
    var summary = TAPSummary()
    /// Set when the file could not run at all (unsupported meta-command, unreadable include).
    var malformed: [ScriptProblem] = []
    var sqlError: PgTAPSQLError?
    /// The file's dbdev install of supabase-test-helpers was skipped.
    var skippedPreamble = false
    /// Work before the error outlived the file (done outside its own transaction, or committed).
    var keptWork = false
    public var duration: Double = 0

    public init(file: String) { self.file = file }

    public var passed: Bool { malformed.isEmpty && sqlError == nil && summary.passed }

    /// The file's assertions and problems as the shared report's outcomes.
    public var outcomes: [TestOutcome] {
        var out: [TestOutcome] = []
        for p in malformed {
            out.append(
                TestOutcome(suite: file, name: "file not run: " + p.message, status: .error, location: p.location))
        }
        guard malformed.isEmpty else { return out }
        if let skip = summary.skipAll, summary.tests.isEmpty {
            out.append(
                TestOutcome(
                    suite: file, name: "all tests skipped", status: .skipped, message: skip.isEmpty ? nil : skip))
        }
        for t in summary.tests {
            out.append(outcome(t))
        }
        if let e = sqlError {
            var lines = e.message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let first = lines.removeFirst()
            lines.append(
                keptWork
                    ? "the file stopped here (as psql with ON_ERROR_STOP does); what it did before this statement stays "
                        + "for the files after it, as under pg_prove, and the rest never ran: fix this statement, "
                        + "since files that need the rest fail too"
                    : "the file stopped here (as psql with ON_ERROR_STOP does) and was rolled back")
            out.append(
                TestOutcome(
                    suite: file, name: "SQL error: " + first, status: .error,
                    message: lines.joined(separator: "\n"), location: e.location, sql: e.sql))
        }
        for p in summary.problems {
            out.append(TestOutcome(suite: file, name: p, status: .failed))
        }
        if let b = summary.bailOut {
            out.append(
                TestOutcome(
                    suite: file, name: "Bail out!" + (b.isEmpty ? "" : " " + b), status: .error,
                    message: "the run stopped here, as prove stops on a bail-out"))
        }
        return out
    }

    func outcome(_ t: TAPTest) -> TestOutcome {
        let name = "\(t.number)" + (t.description.isEmpty ? "" : " - " + t.description)
        let diag = t.diagnostics.isEmpty ? nil : t.diagnostics.joined(separator: "\n")
        var o = TestOutcome(
            suite: file, name: name, status: .passed, message: diag, location: t.location, duration: t.duration)
        switch t.directive {
        case .skip where t.ok:
            o.status = .skipped
            o.message = t.reason.isEmpty ? nil : t.reason
            o.tapOK = true
            o.directiveReason = t.reason
        case .todo:
            o.status = .todo
            o.message = (t.ok ? "passed unexpectedly; TODO: " : "TODO: ") + t.reason
            o.tapOK = t.ok
            o.directiveReason = t.reason
        default:
            o.status = t.isOK ? .passed : .failed
            if t.unplanned {
                o.message =
                    "test \(t.number) is past the plan (1..\(summary.planned ?? 0))" + (diag.map { "\n" + $0 } ?? "")
            }
        }
        return o
    }
}
