import Foundation

/// The result of one check, one pgTAP assertion, or one scenario step.
public struct TestOutcome: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        case passed, failed, skipped, todo
        /// The check could not run (SQL error, bad fixture): counts as a failure.
        case error
    }
    /// Grouping: a table ("public.profiles"), a bucket, or a file.
    public var suite: String
    /// One line: what was checked, e.g. "A cannot update B's row".
    public var name: String
    public var status: Status
    /// Why it failed: expected vs actual. Also the reason of a skip or todo.
    public var message: String?
    public var location: SourceLocation?
    /// The SQL that ran, for failures.
    public var sql: String?
    public var actor: String?
    /// Seconds.
    public var duration: Double
    /// Matrix checks: the operation ("select", "hand-over", "upload", …), what was expected and
    /// observed, and whether the intent is that it goes through (false: denied) — for the HTML grid.
    public var operation: String? = nil
    public var expected: String? = nil
    public var got: String? = nil
    public var intendedAllowed: Bool? = nil
    /// Matrix checks: the database role the actor acts as (anon, authenticated, service_role).
    public var role: String? = nil
    /// Failed matrix checks: the policies responsible, one line per deciding command and row
    /// ("allowed by policy \"x\" (permissive, USING true)").
    public var policies: [String]? = nil
    /// Failed matrix checks: the keys of the row the check reached (`id=1`), or for an insert the
    /// rows it tied the new one to (`team_id=2`).
    public var keys: [String]? = nil
    /// pgTAP SKIP and TODO lines as pgTAP wrote them: `ok` or `not ok` (a TODO that fails is
    /// `not ok`, one that passes `ok`), and the directive's reason.
    public var tapOK: Bool? = nil
    public var directiveReason: String? = nil

    public init(
        suite: String, name: String, status: Status, message: String? = nil, location: SourceLocation? = nil,
        sql: String? = nil, actor: String? = nil, duration: Double = 0
    ) {
        self.suite = suite
        self.name = name
        self.status = status
        self.message = message
        self.location = location
        self.sql = sql
        self.actor = actor
        self.duration = duration
    }

    /// Failed or errored: what makes a run exit 1.
    public var isFailure: Bool { status == .failed || status == .error }
}

/// Everything one test run produced.
public struct TestReport: Sendable, Equatable {
    public var outcomes: [TestOutcome]
    /// Lines shown after the results: coverage, uncovered tables, notes.
    public var notes: [String]
    /// Sequences the run advanced (not transactional, so rollback leaves them moved).
    public var sequences: [SequenceAdvance] = []

    public init(outcomes: [TestOutcome] = [], notes: [String] = []) {
        self.outcomes = outcomes
        self.notes = notes
    }

    public func count(_ status: TestOutcome.Status) -> Int { outcomes.count { $0.status == status } }
    public var failed: Int { outcomes.count { $0.isFailure } }
    public var passed: Bool { failed == 0 }
    /// Suites in order of first appearance.
    public var suites: [String] {
        var seen = Set<String>()
        return outcomes.compactMap { seen.insert($0.suite).inserted ? $0.suite : nil }
    }
}

public enum TestReportFormat: String, Sendable, CaseIterable {
    case text, tap, junit, json
}
