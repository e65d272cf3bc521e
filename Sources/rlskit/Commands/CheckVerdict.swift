@_spi(CLI) import RLSKit

/// The last line of `check` and what it says about tables nobody tested: a run that
/// checked nothing never reads "passed".
enum CheckVerdict {
    static func line(_ report: ProjectCheck.Report, term: Terminal) -> String {
        let what = report.migrations.plan.isEmpty ? "nothing was applied" : "nothing was tested"
        if !report.checkedNothing { return report.passed ? term.green("passed") : term.red("failed") }
        if report.passed { return term.yellow("nothing checked") + " (\(what); allowed by --allow-empty)" }
        // Another phase failed (the audit, say): the empty run itself was allowed.
        let emptyPhase = report.migrations.plan.isEmpty ? "apply" : "test"
        if report.phases.contains(where: { $0.name == emptyPhase && $0.ok }) {
            let failed = report.phases.filter { !$0.ok }.map(\.name).joined(separator: ", ")
            return term.red("failed") + ": \(failed) (\(what); allowed by --allow-empty)"
        }
        let fix = report.migrations.plan.isEmpty ? "give --dir DIR" : "add tests"
        return term.red("failed") + ": \(what) (\(fix), or pass --allow-empty to accept an empty run)"
    }

    /// Every RLS table left untested when there were no tests.
    static func untested(_ report: ProjectCheck.Report) -> [String] {
        guard !report.untestedTables.isEmpty, report.attacked == 0 else { return [] }
        let tables = report.untestedTables.map(TextEscape.line).joined(separator: ", ")
        return ["untested (row level security on, no tests): " + tables]
    }

    /// The one line after the verdict saying what to do next: a project without access files is
    /// pointed to `rlskit init`, whether it has pgTAP tests, scenarios or nothing; one with them
    /// to its failures, or to CI once it passes. Nil when nothing was applied.
    static func next(_ report: ProjectCheck.Report, _ suite: TestSuite) -> String? {
        guard !report.migrations.plan.isEmpty else { return nil }
        if !suite.harness.hasAccessFiles {
            let have =
                !suite.pgtap.isEmpty
                ? "your pgTAP tests ran as they are; "
                : suite.harness.isEmpty ? "" : "your scenarios ran; "
            return "next: \(have)rlskit init drafts an access file (\(InitCommand.defaultPath)) from your policies"
                + " that tests every RLS table as each kind of user: answer its ?s, then run rlskit check again"
        }
        if !report.passed {
            return "next: each ✗ above names the line that declared it; fix the policy or that line"
                + " (rlskit check --html report.html shows who can do what), then run rlskit check again"
        }
        return "next: run rlskit check on every pull request (docs/ci.md)"
    }
}
